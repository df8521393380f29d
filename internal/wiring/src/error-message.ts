// The text of anything thrown: an Error's message, else the value as a string. One helper, so no
// composer writes `(error as Error).message` (which is undefined for a thrown string).

/** The message of a thrown value, whatever was thrown. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === "object" && error !== null && "message" in error)
    return String((error as { message: unknown }).message);
  return String(error);
}
