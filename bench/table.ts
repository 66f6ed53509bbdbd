/** Plain-text tables for the bench output: a header, a rule, one line per row, columns padded to their widest cell. */
export function formatTable(header: readonly string[], body: readonly (readonly string[])[]): string {
  const widths = header.map((h, c) => Math.max(h.length, ...body.map((row) => (row[c] as string).length)));
  const line = (cells: readonly string[]) => cells.map((cell, c) => cell.padEnd(widths[c] as number)).join(' | ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('-|-'), ...body.map(line)].join('\n');
}
