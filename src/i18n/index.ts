/**
 * The message catalogue: every string our code shows to learners and admins,
 * in English (en.ts, the source), German and Spanish. Pure: no I/O. Numbers,
 * dates and plurals go through Intl with the lesson's locale.
 *
 * `t(locale, key, params)` fills `{name}` placeholders (numbers formatted with
 * Intl.NumberFormat); `tn(locale, base, count, params)` picks `<base>.one` or
 * `<base>.other` with Intl.PluralRules.
 */

import { de } from "./de.ts";
import { en, type MessageKey } from "./en.ts";
import { es } from "./es.ts";
import { DEFAULT_LOCALE, LOCALES, type Locale } from "./locales.ts";

export { ANSWER_WORDS, type AnswerWords, type NumberWords } from "./answer-words.ts";
export type { MessageKey } from "./en.ts";
export { DEFAULT_LOCALE, LOCALES, type Locale } from "./locales.ts";

/** Every catalogue, by locale. */
export const CATALOGUES: Readonly<Record<Locale, Readonly<Record<MessageKey, string>>>> = { en, de, es };

/** A language's names: in English (for the model's instruction) and in itself (for people). */
export const LANGUAGE_NAMES: Readonly<Record<Locale, { english: string; native: string }>> = {
	en: { english: "English", native: "English" },
	de: { english: "German", native: "Deutsch" },
	es: { english: "Spanish", native: "Español" },
};

/** Values for placeholders: strings as they are, numbers formatted for the locale. */
export type MessageParams = Readonly<Record<string, string | number>>;

/** Keys that have plural forms, without the `.one`/`.other` suffix. */
export type PluralKey = MessageKey extends infer K ? (K extends `${infer B}.other` ? B : never) : never;

/** True when `value` is a supported locale. */
export function isLocale(value: unknown): value is Locale {
	return typeof value === "string" && (LOCALES as readonly string[]).includes(value);
}

/**
 * The supported locale of a platform's language tag (`de`, `de-DE`, `es-ES`,
 * `es-419`, `en-US`, `pt_BR`), or undefined when it is unsupported or not a tag.
 */
export function resolveLocale(tag: unknown): Locale | undefined {
	if (typeof tag !== "string") return undefined;
	const primary = tag.trim().toLowerCase().split(/[-_]/)[0] ?? "";
	return isLocale(primary) ? primary : undefined;
}

/** The first supported locale of `tags` (an explicit choice first), else English. */
export function pickLocale(...tags: unknown[]): Locale {
	for (const tag of tags) {
		const locale = resolveLocale(tag);
		if (locale) return locale;
	}
	return DEFAULT_LOCALE;
}

const numberFormats = new Map<Locale, Intl.NumberFormat>();

/** A number for people in `locale`: `50,000` / `50.000`. */
export function formatNumber(locale: Locale, n: number): string {
	let format = numberFormats.get(locale);
	if (!format) {
		format = new Intl.NumberFormat(locale);
		numberFormats.set(locale, format);
	}
	return format.format(n);
}

/** Fill `{name}` placeholders; an unknown placeholder stays as written (visible, never a crash). */
function fill(locale: Locale, template: string, params: MessageParams | undefined): string {
	if (!params) return template;
	return template.replace(/\{(\w+)\}/g, (whole, name: string) => {
		const value = params[name];
		if (value === undefined) return whole;
		return typeof value === "number" ? formatNumber(locale, value) : value;
	});
}

/** The message `key` in `locale` (English when a catalogue lacks it), placeholders filled. */
export function t(locale: Locale, key: MessageKey, params?: MessageParams): string {
	const template = CATALOGUES[locale]?.[key] ?? en[key];
	return fill(isLocale(locale) ? locale : DEFAULT_LOCALE, template, params);
}

const pluralRules = new Map<Locale, Intl.PluralRules>();

/** The plural form of `base` for `count` in `locale` (`{count}` is filled too). */
export function tn(locale: Locale, base: PluralKey, count: number, params?: MessageParams): string {
	let rules = pluralRules.get(locale);
	if (!rules) {
		rules = new Intl.PluralRules(locale);
		pluralRules.set(locale, rules);
	}
	const form = `${base}.${rules.select(count)}`;
	const key = (form in en ? form : `${base}.other`) as MessageKey;
	return t(locale, key, { count, ...params });
}

/** A relative time in `locale`: "in 3 hours", "vor 2 Minuten" (`seconds` from now, negative for the past). */
export function formatRelative(locale: Locale, seconds: number): string {
	const format = new Intl.RelativeTimeFormat(locale, { numeric: "auto" });
	const abs = Math.abs(seconds);
	if (abs < 60) return format.format(Math.round(seconds), "second");
	if (abs < 3600) return format.format(Math.round(seconds / 60), "minute");
	if (abs < 86_400) return format.format(Math.round(seconds / 3600), "hour");
	return format.format(Math.round(seconds / 86_400), "day");
}

/** A duration in hours and minutes in `locale`: "3 hr, 12 min" / "3 Std., 12 Min.". */
export function formatDuration(locale: Locale, minutes: number): string {
	const h = Math.floor(minutes / 60);
	const m = minutes % 60;
	const unit = (value: number, name: "hour" | "minute") =>
		new Intl.NumberFormat(locale, { style: "unit", unit: name, unitDisplay: "short" }).format(value);
	const parts = [...(h > 0 ? [unit(h, "hour")] : []), ...(m > 0 || h === 0 ? [unit(m, "minute")] : [])];
	return new Intl.ListFormat(locale, { style: "narrow", type: "unit" }).format(parts);
}

/** A UTC clock time in `locale`: "00:00". */
export function formatUtcClock(locale: Locale, at: Date): string {
	return new Intl.DateTimeFormat(locale === "en" ? "en-GB" : locale, {
		hour: "2-digit",
		minute: "2-digit",
		timeZone: "UTC",
	}).format(at);
}

/** A list in `locale`: "a, b or c" / "a, b oder c". */
export function formatOrList(locale: Locale, items: readonly string[]): string {
	return new Intl.ListFormat(locale, { type: "disjunction" }).format(items);
}

/** An amount of US dollars in `locale` (up to 4 decimals). */
export function formatDollars(locale: Locale, amount: number): string {
	return new Intl.NumberFormat(locale === "en" ? "en-US" : locale, {
		style: "currency",
		currency: "USD",
		maximumFractionDigits: 4,
	}).format(amount);
}

/** Placeholder names of a template, sorted (for the completeness test). */
export function placeholders(template: string): string[] {
	return [...new Set([...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string))].sort();
}
