// Errors as the roster reads them: a Node-style `code` where there is one, and a one-line text.

export const errorCode = (error: unknown): string | undefined =>
  typeof error === "object" && error !== null && "code" in error
    ? String((error as { code: unknown }).code)
    : undefined;

export const errorText = (error: unknown): string =>
  error instanceof Error ? error.message : String(error);

/** An error with a Node-style code, for the refusals the roster raises itself. */
export const codedError = (code: string, message: string) =>
  Object.assign(new Error(message), { code });
