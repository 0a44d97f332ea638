/**
 * How many decimals a price is shown with: the currency's usual number, or more when the
 * catalogue gives the price more, up to 6 (a price with more is rounded to 6). Rounding to the
 * usual digits would show a price the reseller never set: a yen price of 9.5 as "¥10", a dollar
 * price of 0.125 as "$0.13".
 */
export function priceDecimals(amount: number, usual: number): number {
  let own = 0;
  while (own < 6 && Number(amount.toFixed(own)) !== amount) own += 1;
  return Math.max(usual, own);
}
