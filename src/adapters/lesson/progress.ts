/**
 * `/lesson progress`: what the picture shows and the short text beside it, from
 * the learner's profile and review items. Per topic (the latest lesson on it
 * counts): nodes learned / shaky / not yet and the items due; a timeline of
 * lessons and reviews per day.
 */

import type { LearnerProfile, ReviewItem } from "../../agent/index.ts";
import { DEFAULT_LOCALE, type Locale, t } from "../../i18n/index.ts";
import type { ProgressData, ProgressTopic } from "../../render/index.ts";
import { whenText } from "./review.ts";

/** The picture's data (topics most recent first). */
export function progressData(
	profile: LearnerProfile | undefined,
	items: readonly ReviewItem[],
	now: Date,
): ProgressData {
	const byTopic = new Map<string, ProgressTopic>();
	const lessons = [...(profile?.lessons ?? [])].sort((a, b) => b.startedAt.localeCompare(a.startedAt));
	const at = now.getTime();
	for (const lesson of lessons) {
		const topic = lesson.topic.toLowerCase();
		if (byTopic.has(topic)) continue; // the latest lesson on a topic stands for it
		const count = (m: string) => lesson.nodes.filter((n) => n.mastery === m).length;
		byTopic.set(topic, {
			topic: lesson.topic,
			learned: count("learned"),
			shaky: count("shaky"),
			notYet: count("not-yet"),
			due: 0,
		});
	}
	const days: ProgressData["days"] = {};
	const day = (iso: string) => {
		const d = iso.slice(0, 10);
		days[d] ??= { lessons: 0, reviews: 0 };
		return days[d];
	};
	for (const lesson of lessons) day(lesson.startedAt).lessons++;
	for (const item of items) {
		if (Date.parse(item.card.due) <= at) {
			const t = byTopic.get(item.topic.toLowerCase());
			if (t) t.due++;
		}
		// A card reviewed after its lesson's first scheduling shows as a review day.
		if (item.card.lastReview && item.card.reps > 1) day(item.card.lastReview).reviews++;
	}
	return { topics: [...byTopic.values()], days, today: now };
}

/** The text beside the picture (and instead of it when it cannot be drawn). */
export function progressSummary(
	data: ProgressData,
	items: readonly ReviewItem[],
	now: Date,
	locale: Locale = DEFAULT_LOCALE,
): string {
	if (data.topics.length === 0) return t(locale, "progress.none");
	const lines = data.topics.slice(0, 10).map((topic) =>
		t(locale, "progress.topic", {
			topic: topic.topic,
			learned: topic.learned,
			shaky: topic.shaky,
			notYet: topic.notYet,
			due: topic.due > 0 ? t(locale, "progress.topicDue", { count: topic.due }) : "",
		}),
	);
	const due = items.filter((i) => Date.parse(i.card.due) <= now.getTime()).length;
	const future = items
		.map((i) => i.card.due)
		.filter((d) => Date.parse(d) > now.getTime())
		.sort()[0];
	lines.push(
		due > 0
			? t(locale, "progress.dueNow", { count: due })
			: t(locale, "review.next", { when: whenText(future, now, locale) }),
	);
	return lines.join("\n");
}
