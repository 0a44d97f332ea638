import type { CountryCode } from "libphonenumber-js/max";
import { countryCode } from "../../../contract/phones.js";
import { usageError } from "../../cli-error.js";

/**
 * The `--default-country` flag as a country code, or a usage error before any request: the
 * dry run and the upload refuse the same values.
 */
export function defaultCountryFlag(text: string | undefined): CountryCode | undefined {
  if (text === undefined) return undefined;
  const code = countryCode(text);
  if (code === undefined) {
    throw usageError(
      `--default-country expects a two-letter country code such as DE; got '${text}'.`,
    );
  }
  return code;
}
