export type { Io } from "./_context.js";
export { main } from "./_main.js";
