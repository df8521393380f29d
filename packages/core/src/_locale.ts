// Whether the locale speaks UTF-8 as tmux reads it (`localeSpeaksUtf8`).
/** The locale variables a C program reads for its character set, in the order it reads them. */
export type LocaleEnv = {
  LC_ALL?: string | undefined;
  LC_CTYPE?: string | undefined;
  LANG?: string | undefined;
};

/**
 * Whether the locale names UTF-8 as tmux reads it: the first of LC_ALL, LC_CTYPE, LANG that is set
 * and not empty decides (`en_US.UTF-8`, `C.utf8`); none set is the C locale, which is not. Where
 * it is not, tmux draws each non-ASCII character of a `#()` job's output as `_`, so the status
 * line says the same in ASCII.
 */
export function localeSpeaksUtf8(env: LocaleEnv): boolean {
  const named = [env.LC_ALL, env.LC_CTYPE, env.LANG].find(
    (value) => value !== undefined && value !== "",
  );
  return named !== undefined && /utf-?8/i.test(named);
}
