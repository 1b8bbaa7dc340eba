/**
 * The virtual baseline documents, `eqlens-baseline://<path>?<label>`. The
 * server builds these URIs for diagnostics' related information; the
 * extension builds the same ones for its diff view and maps them back to the
 * file whose baseline they show. Works on URI strings so it is testable
 * without VS Code.
 */
import { BASELINE_SCHEME } from "./protocol";

const FILE_PREFIX = "file://";
const BASELINE_PREFIX = `${BASELINE_SCHEME}://`;
const BASELINE_SCHEME_PREFIX = `${BASELINE_SCHEME}:`;

/** The label as the server writes it in the query: unreserved characters kept, others `_`. */
function queryLabel(label: string): string {
  return label.replace(/[^A-Za-z0-9\-._~]/g, "_");
}

/** The baseline document of a `file:` URI, or `undefined` for other schemes. */
export function baselineUriFor(fileUri: string, label: string): string | undefined {
  if (!fileUri.startsWith(FILE_PREFIX)) {
    return undefined;
  }
  const rest = fileUri.slice(FILE_PREFIX.length);
  return `${BASELINE_PREFIX}${rest}?${queryLabel(label)}`;
}

/**
 * The `file:` URI whose baseline an `eqlens-baseline:` URI shows, written
 * as VS Code writes file URIs (`file:///path`). VS Code prints a
 * `eqlens-baseline:///path` URI without the empty authority
 * (`eqlens-baseline:/path`), so both forms are read.
 */
export function fileUriOfBaseline(baselineUri: string): string | undefined {
  if (!baselineUri.startsWith(BASELINE_SCHEME_PREFIX)) {
    return undefined;
  }
  let rest = baselineUri.slice(BASELINE_SCHEME_PREFIX.length);
  if (rest.startsWith("//")) {
    rest = rest.slice(2);
  } else if (!rest.startsWith("/")) {
    return undefined;
  }
  const end = rest.search(/[?#]/);
  return FILE_PREFIX + (end < 0 ? rest : rest.slice(0, end));
}
