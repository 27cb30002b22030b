/**
 * Discord's command descriptions in every supported language: the catalogue's
 * text as `description` (English) and `description_localizations` (German,
 * Spanish) for each of Discord's locale codes.
 */

import { type Locale, type MessageKey, type MessageParams, t } from "../../i18n/index.ts";

/** Discord's locale codes for each of our languages other than English (Spanish has two). */
const DISCORD_LOCALES: Readonly<Record<Exclude<Locale, "en">, readonly string[]>> = {
	de: ["de"],
	es: ["es-ES", "es-419"],
};

/** `description_localizations` (or name) for a catalogue key: every supported language Discord knows. */
export function discordLocalizations(key: MessageKey, params?: MessageParams): Record<string, string> {
	const out: Record<string, string> = {};
	for (const [locale, codes] of Object.entries(DISCORD_LOCALES) as Array<[Locale, readonly string[]]>)
		for (const code of codes) out[code] = t(locale, key, params).slice(0, 100);
	return out;
}

/** A description and its localizations (Discord allows 100 characters). */
export const described = (key: MessageKey, params?: MessageParams) => ({
	description: t("en", key, params).slice(0, 100),
	description_localizations: discordLocalizations(key, params),
});
