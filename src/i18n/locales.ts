/**
 * The languages lessons run in. Its own file so the catalogues' word lists
 * (answer-words.ts, intent-words.ts) can name a locale without importing
 * index.ts, which re-exports them.
 */

/** The languages lessons run in (BCP 47 primary subtags). */
export const LOCALES = ["en", "de", "es"] as const;

/** A supported lesson language. */
export type Locale = (typeof LOCALES)[number];

/** The default (and fallback) language. */
export const DEFAULT_LOCALE: Locale = "en";
