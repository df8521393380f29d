// The input of a start: a pipe, a socket or a file on stdin is read with fs.read (on libuv's
// threads, so a timer still fires while the writer holds it open), where Node's process.stdin
// would first load its streams and sockets (a few ms of every Claude Code hook, which reads its
// JSON there). A terminal (or anything else that is a character device) gets Node's own stream,
// as before; so does every use other than reading it through (a `for await`), and a descriptor
// left non-blocking by another process (EAGAIN) hands the rest to Node's stream.
import { fstatSync, read } from "node:fs";
import type { Io } from "./_context.js";

type Input = Io["stdin"];

const CHUNK = 64 * 1024;

/** One read of `fd`: the bytes read, none at its end. */
const readOnce = (fd: number) =>
  new Promise<Buffer>((resolve, reject) => {
    const buffer = Buffer.allocUnsafe(CHUNK);
    read(fd, buffer, 0, CHUNK, null, (error, bytes) =>
      error ? reject(error) : resolve(buffer.subarray(0, bytes)),
    );
  });

/** The chunks of `fd` to its end; from EAGAIN on, the stream's. */
async function* chunks(fd: number, stream: () => Input): AsyncGenerator<Buffer> {
  for (;;) {
    let chunk: Buffer;
    try {
      chunk = await readOnce(fd);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EAGAIN") throw error;
      for await (const rest of stream()) yield rest as Buffer;
      return;
    }
    if (chunk.length === 0) return;
    yield chunk;
  }
}

/** stdin for `fd`: read directly when it is a pipe, a socket or a file; else `stream()`. */
export function fdInput(fd: number, stream: () => Input): Input {
  let direct: boolean;
  try {
    const stat = fstatSync(fd);
    direct = stat.isFIFO() || stat.isSocket() || stat.isFile();
  } catch {
    direct = false;
  }
  if (!direct) return stream();
  const own: Record<PropertyKey, unknown> = {
    isTTY: false,
    [Symbol.asyncIterator]: () => chunks(fd, stream),
  };
  // Anything else (a readline, Ink, `.on("data")`) is the stream's, taken then.
  return new Proxy(own, {
    get(target, key) {
      if (key in target) return target[key];
      const real = stream() as unknown as Record<PropertyKey, unknown>;
      const value = real[key];
      return typeof value === "function" ? value.bind(real) : value;
    },
  }) as unknown as Input;
}
