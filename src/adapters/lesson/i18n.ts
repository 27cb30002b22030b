/**
 * The message catalogue as the platform adapters reach it (they import core
 * contracts and the lesson layer only): the same functions as src/i18n.
 */

export {
	CATALOGUES,
	DEFAULT_LOCALE,
	formatNumber,
	isLocale,
	LANGUAGE_NAMES,
	LOCALES,
	type Locale,
	type MessageKey,
	type MessageParams,
	pickLocale,
	resolveLocale,
	t,
	tn,
} from "../../i18n/index.ts";
