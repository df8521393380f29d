// Human output: aligned tables, ages, and the words for states. JSON output never passes here.

/** Columns padded to their widest cell; the last column is never padded. */
export function table(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  indent = "  ",
): string[] {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => visible(row[column] ?? "").length)),
  );
  const line = (cells: readonly string[]) =>
    indent +
    cells
      .map((cell, column) =>
        column === cells.length - 1
          ? cell
          : cell + " ".repeat(Math.max(0, widths[column]! - visible(cell).length)),
      )
      .join("  ")
      .trimEnd();
  return [line(header), ...rows.map(line)];
}

/** The text without colour escapes, for measuring. */
const COLOUR = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g");
const visible = (text: string) => text.replace(COLOUR, "");

/** 950 → "1s", 125_000 → "2m", 7_200_000 → "2h". */
export function age(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86_400)}d`;
}

/** Shorten a path under the home folder. */
export function shortPath(path: string, home: string | undefined): string {
  return home && (path === home || path.startsWith(`${home}/`))
    ? `~${path.slice(home.length)}`
    : path;
}
