/** Query parameters node-postgres reads secrets from, besides the URL's own password. */
export const secretQueryParameters = ["password", "sslpassword", "sslkey"] as const;

/** Whether a URL carries a secret: its password, or one of secretQueryParameters. */
export function holdsSecret(url: URL): boolean {
  return url.password !== "" || secretQueryParameters.some((name) => url.searchParams.has(name));
}

/**
 * A URL with its password replaced, for messages and logs (a database URL, the CLI's base URL in
 * --debug): any scheme, since a message refusing a mistyped one (`mysql://user:secret@…`) quotes
 * it too. A file path is left as it is.
 */
export function redactedUrl(target: string): string {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(target)?.[1];
  if (scheme === undefined) return target;
  try {
    const url = new URL(target);
    let hidden = false;
    if (url.password) {
      url.password = "***";
      hidden = true;
    }
    // node-postgres also reads these from the query string.
    for (const secret of secretQueryParameters) {
      if (url.searchParams.has(secret)) {
        url.searchParams.set(secret, "***");
        hidden = true;
      }
    }
    // Unchanged otherwise: URL's own writing would add a "/" to a bare base URL.
    return hidden ? url.toString() : target;
  } catch {
    return `${scheme}://…`;
  }
}
