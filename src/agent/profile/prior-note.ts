/**
 * The part of a learner's profile the prober sees: earlier lessons whose topic
 * or map shares a content word with the new topic, with the nodes learned,
 * shaky or not reached and the misconceptions named then. Bounded in size
 * (the note goes into every request of the lesson, so it is short).
 */

import type { LearnerProfile, ProfileLesson } from "./profile-store.ts";

/** Most lessons a note lists. */
const MAX_LESSONS = 3;
/** Longest note, in characters. */
const MAX_NOTE_CHARS = 1_500;
const STOP = new Set(["the", "and", "for", "with", "how", "what", "into", "from", "about", "intro", "introduction"]);

/** Content words of a text: lowercase, 3+ letters, a trailing plural `s` dropped. */
export function contentWords(text: string): Set<string> {
	const words = new Set<string>();
	for (const raw of text
		.toLowerCase()
		.slice(0, 2_000)
		.split(/[^\p{L}\p{N}]+/u)) {
		if (raw.length < 3 || STOP.has(raw)) continue;
		words.add(raw.length > 3 && raw.endsWith("s") ? raw.slice(0, -1) : raw);
	}
	return words;
}

function related(lesson: ProfileLesson, topic: Set<string>): boolean {
	const words = contentWords([lesson.topic, ...lesson.nodes.map((n) => n.label)].join(" "));
	for (const w of topic) if (words.has(w)) return true;
	return false;
}

const list = (labels: string[]): string => (labels.length === 0 ? "none" : labels.join(", "));

/** The note for a new lesson on `topic`; undefined when no earlier lesson relates. */
export function priorKnowledge(profile: LearnerProfile, topic: string): string | undefined {
	const words = contentWords(topic);
	const lessons = profile.lessons
		.filter((l) => l.nodes.length > 0 && related(l, words))
		.sort((a, b) => b.startedAt.localeCompare(a.startedAt))
		.slice(0, MAX_LESSONS);
	if (lessons.length === 0) return undefined;
	const lines = ["Earlier lessons of this learner on related topics (from their learnharness profile):"];
	const misconceptions: string[] = [];
	for (const l of lessons) {
		const of = (m: string) => l.nodes.filter((n) => n.mastery === m).map((n) => n.label);
		lines.push(
			`- "${l.topic}" (${l.startedAt.slice(0, 10)}): learned ${list(of("learned"))}; shaky ${list(of("shaky"))}; not reached ${list(of("not-yet"))}.`,
		);
		misconceptions.push(...l.misconceptions);
	}
	if (misconceptions.length > 0) lines.push(`Misconceptions named then: ${misconceptions.slice(0, 4).join(" | ")}`);
	lines.push(
		"Do not probe what was learned: tell the learner in one short line that you are skipping it because they showed it last time, " +
			"and start the probe at the shaky or not-reached ideas.",
	);
	const note = lines.join("\n");
	return note.length <= MAX_NOTE_CHARS ? note : `${note.slice(0, MAX_NOTE_CHARS - 1)}…`;
}
