/**
 * Whether text can be a token: printable ASCII without spaces. Anything else cannot travel in an
 * Authorization header, so it fails inside the HTTP client (which reads as an unreachable
 * service) or, as the first account's token, is stored and then never matches.
 */
export function isTokenText(text: string): boolean {
  return /^[\x21-\x7e]+$/.test(text);
}
