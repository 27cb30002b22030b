/**
 * The words that say what a line typed in a lesson's thread is, when a question is open there:
 * a request for help (a hint, another explanation, the answer) or a question of the learner's own
 * (`why…`, `wait, …`), rather than an answer. Per lesson language, kept with the catalogues so a
 * new language brings its own; English is always read besides the lesson's language. Written as
 * people write them; src/core/typed-intent.ts folds them the way it folds the text (lower case,
 * accents and apostrophes dropped) and matches them at the start of the text, word by word.
 */

import type { Locale } from "./locales.ts";

/** What one language contributes to reading typed text. */
export interface IntentWords {
	/** Openings of a question of the learner's own (not an answer): `why`, `wait`, `how come`. */
	questions: readonly string[];
	/** Requests for a hint. */
	hint: readonly string[];
	/** Requests for another explanation. */
	explain: readonly string[];
	/** Requests to see the answer. */
	show: readonly string[];
	/** Words people open with that say nothing yet (`hmm, tell me more`): skipped before reading. */
	fillers: readonly string[];
}

export const INTENT_WORDS: Readonly<Record<Locale, IntentWords>> = {
	en: {
		questions: [
			"why",
			"how come",
			"how does",
			"how do",
			"how is",
			"how can",
			"wait",
			"hold on",
			"what does",
			"what do you mean",
			"what is meant",
			"what if",
			"can you",
			"could you",
			"would you",
			"do you mean",
			"does it",
			"does that",
			"should i",
			"why is",
			"i have a question",
			"question",
			"quick question",
		],
		hint: [
			"hint",
			"a hint",
			"give me a hint",
			"can i have a hint",
			"can i get a hint",
			"any hint",
			"any hints",
			"clue",
		],
		explain: [
			"explain again",
			"explain it again",
			"explain that again",
			"explain another way",
			"explain it another way",
			"explain differently",
			"explain it differently",
			"i dont understand",
			"i do not understand",
			"i dont get it",
			"i dont get this",
			"i dont follow",
			"i am confused",
			"im confused",
			"confused",
			"im lost",
			"i am lost",
			"tell me more",
			"more please",
			"can you explain",
			"could you explain",
			"explain",
		],
		show: [
			"show answer",
			"show the answer",
			"show me the answer",
			"tell me the answer",
			"just tell me",
			"what is the answer",
			"whats the answer",
			"give me the answer",
			"reveal",
			"reveal the answer",
		],
		fillers: ["hmm", "hm", "um", "uh", "ok", "okay", "so", "well", "oh", "ah", "sorry", "but"],
	},
	de: {
		questions: [
			"warum",
			"wieso",
			"weshalb",
			"wie kommt",
			"wie funktioniert",
			"wie geht",
			"moment",
			"warte",
			"was bedeutet",
			"was heisst",
			"was meinst du",
			"kannst du",
			"koenntest du",
			"konntest du",
			"heisst das",
			"soll ich",
			"ich habe eine frage",
			"frage",
		],
		hint: ["tipp", "ein tipp", "einen tipp", "gib mir einen tipp", "hinweis", "einen hinweis"],
		explain: [
			"erklaer das nochmal",
			"erklar das nochmal",
			"erklaere es nochmal",
			"erklare es nochmal",
			"nochmal erklaeren",
			"nochmal erklaren",
			"anders erklaeren",
			"anders erklaren",
			"ich verstehe das nicht",
			"ich verstehe nicht",
			"versteh ich nicht",
			"verstehe ich nicht",
			"ich bin verwirrt",
			"erklaer",
			"erklar",
			"erzaehl mir mehr",
			"erzahl mir mehr",
		],
		show: [
			"zeig die antwort",
			"zeig mir die antwort",
			"zeig die losung",
			"zeig die loesung",
			"sag mir die antwort",
			"was ist die antwort",
			"losung",
			"loesung",
		],
		fillers: ["hmm", "hm", "ah", "oh", "also", "ok", "okay", "na", "aeh", "sorry", "aber"],
	},
	es: {
		questions: [
			"por que",
			"porque",
			"como es que",
			"como funciona",
			"como se",
			"espera",
			"un momento",
			"que significa",
			"que quieres decir",
			"puedes",
			"podrias",
			"quieres decir",
			"deberia",
			"tengo una pregunta",
			"pregunta",
		],
		hint: ["pista", "una pista", "dame una pista", "me das una pista"],
		explain: [
			"explicalo otra vez",
			"explica otra vez",
			"explicalo de otra manera",
			"explica de otra forma",
			"otra explicacion",
			"no entiendo",
			"no lo entiendo",
			"estoy confundido",
			"estoy confundida",
			"explicame",
			"explica",
			"cuentame mas",
		],
		show: [
			"muestra la respuesta",
			"muestrame la respuesta",
			"dime la respuesta",
			"cual es la respuesta",
			"dame la respuesta",
		],
		fillers: ["hmm", "hm", "ah", "oh", "eh", "bueno", "vale", "pues", "perdon", "pero"],
	},
};
