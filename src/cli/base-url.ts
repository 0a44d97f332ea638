/**
 * Why a base URL cannot be used (an absolute http or https URL, e.g. http://127.0.0.1:8420), or
 * undefined when it can.
 */
export function baseUrlProblem(value: string): string | undefined {
  const url = addressUrl(value);
  if (typeof url === "string") return url;
  // The API's own path is added to every request: copied from the docs, it would be doubled.
  const apiPath = /\/api\/v1\/*$/;
  if (apiPath.test(url.pathname)) {
    const base = `${url.origin}${url.pathname.replace(apiPath, "")}`;
    return `'${value}' ends in the API's path /api/v1; give the service's address without it: ${base}.`;
  }
  return undefined;
}

/** Where a base URL came from, in the words of the error message. */
export function baseUrlSource(source: string): string {
  if (source === "flag") return "--base-url";
  if (source === "env") return "RESELLER_BASE_URL";
  if (source === "profile") return "the profile";
  return "the default";
}

/**
 * An address paths are added to (the service's base URL, `serve --public-url`): an absolute
 * http or https URL without a query or fragment, not even an empty `?` or `#`. The URL, or why not.
 */
export function addressUrl(value: string): URL | string {
  if (!URL.canParse(value)) {
    return `'${value}' is not a URL; expected one like http://127.0.0.1:8420 or https://api.example.com.`;
  }
  const url = new URL(value);
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return `'${value}' is not an http or https URL; expected one like http://127.0.0.1:8420.`;
  }
  if (url.search || url.hash || /[?#]/.test(value)) {
    return `'${value}' has a query or fragment; give the address only.`;
  }
  return url;
}
