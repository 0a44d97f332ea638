/**
 * A whole number with thousands separators (1,000,000,000), written without Intl: texts built
 * from it are made as modules load, and the first Intl number format costs a CLI start ~10 ms.
 */
export const thousands = (n: number): string => String(n).replace(/\B(?=(\d{3})+$)/g, ",");

/** A size in whole megabytes as people read it: `100 MB`. */
export const megabytes = (bytes: number): string => `${Math.floor(bytes / (1024 * 1024))} MB`;
