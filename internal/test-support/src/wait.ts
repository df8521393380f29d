// Waiting in tests and benchmarks: poll until something is so, and read a child's stdout line by line.
import { createInterface } from "node:readline";

/** Read `read()` until `accept` holds (every `intervalMs`, at most `attempts` times); its value. */
export async function eventually<T>(
  read: () => Promise<T> | T,
  accept: (value: T) => boolean,
  what: string,
  options: { attempts?: number; intervalMs?: number } = {},
): Promise<T> {
  const { attempts = 150, intervalMs = 50 } = options;
  let last: T | undefined;
  for (let attempt = 0; attempt < attempts; attempt += 1) {
    last = await read();
    if (accept(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(last)}`);
}

/** A stream's lines as a queue: `next()` is the oldest line not yet taken, now or when it comes. */
export function lineQueue(stream: NodeJS.ReadableStream) {
  const lines: string[] = [];
  const waiting: ((line: string) => void)[] = [];
  createInterface({ input: stream }).on("line", (line) => {
    const next = waiting.shift();
    if (next) next(line);
    else lines.push(line);
  });
  return {
    /** Lines that arrived and were not taken yet. */
    lines,
    next: () =>
      new Promise<string>((resolve) =>
        lines.length > 0 ? resolve(lines.shift()!) : waiting.push(resolve),
      ),
  };
}
