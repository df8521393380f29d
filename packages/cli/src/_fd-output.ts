// The output streams of a start: a pipe or a file is written with fs.writeSync, where Node's
// process.stdout would first load its streams and sockets (a few ms of every short start); a
// terminal (or any other character device but /dev/null) gets Node's own stream, as before.
// Node writes a pipe synchronously too on Linux, so the order and the blocking are the same; a
// pipe left non-blocking by another process (EAGAIN) hands the rest to Node's stream.
import { fstatSync, statSync, writeSync } from "node:fs";
import type { Output } from "./_context.js";

type Listener = (error: Error) => void;

/** A writer for `fd` that is process.stdout's or process.stderr's `stream` on a terminal. */
export function fdOutput(fd: number, stream: () => NodeJS.WriteStream): Output {
  let direct: boolean;
  try {
    const facts = fstatSync(fd);
    // /dev/null (output dropped: a child's "ignore") is a character device no terminal is.
    direct = !facts.isCharacterDevice() || facts.rdev === statSync("/dev/null").rdev;
  } catch {
    direct = false;
  }
  if (!direct) return stream();
  const listeners: Listener[] = [];
  let handed: NodeJS.WriteStream | undefined;
  const hand = () => {
    handed ??= stream();
    for (const listener of listeners.splice(0)) handed.on("error", listener);
    return handed;
  };
  const output = {
    isTTY: false,
    write(text: string | Uint8Array, callback?: (error?: Error | null) => void): boolean {
      if (handed) return handed.write(text, callback);
      const bytes = typeof text === "string" ? Buffer.from(text) : text;
      let done = 0;
      try {
        while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "EAGAIN")
          return hand().write(bytes.subarray(done), callback);
        // As a stream fails: the callback told, then every 'error' listener.
        process.nextTick(() => {
          callback?.(error as Error);
          for (const listener of listeners) listener(error as Error);
        });
        return false;
      }
      if (callback) process.nextTick(callback, null);
      return true;
    },
    on(event: string, listener: Listener) {
      if (event !== "error") return output;
      if (handed) handed.on(event, listener);
      else listeners.push(listener);
      return output;
    },
    once(event: string, listener: Listener) {
      const one: Listener = (error) => {
        output.off(event, one);
        listener(error);
      };
      return output.on(event, one);
    },
    off(event: string, listener: Listener) {
      const at = listeners.indexOf(listener);
      if (at >= 0) listeners.splice(at, 1);
      handed?.off(event, listener);
      return output;
    },
  };
  return output;
}
