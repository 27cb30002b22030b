/**
 * Alt text of the plan picture, for screen readers: every node in reading
 * order (prerequisites first) with its status and mastery, e.g. "Lesson map,
 * 5 steps, now on Chain rule. Limits (learned); Power rule (shaky); Chain rule
 * (current, not yet); ...". Bounded: whole items only, then "and N more".
 * Discord's attachment description takes 1,024 characters, Slack's alt_text
 * 2,000: the default bound fits both.
 */

import type { DerivedPlanStatuses, PlanTree } from "../core/contracts/plan.ts";
import { nodeMastery, type PlanMastery } from "../core/mastery.ts";
import { DEFAULT_LOCALE, type Locale, t, tn } from "../i18n/index.ts";
import { oneLine, planReadingOrder } from "./plan-source.ts";
import { legendWords, planNodeKind } from "./plan-style.ts";

/** Default bound of the alt text: under Discord's 1,024-character attachment description. */
export const PLAN_ALT_MAX_CHARS = 1000;
/** Characters of one title in the alt text: far more than the map draws (48), so a title cut there is whole here. */
const ALT_TITLE_CHARS = 160;

/** What a node is, in words: "learned", "current, shaky", "visited, not yet", "not yet". */
function statusWords(
	kind: ReturnType<typeof planNodeKind>,
	mastery: ReturnType<typeof nodeMastery>,
	words: ReturnType<typeof legendWords>,
): string {
	const known = words[mastery === "not-yet" ? "upcoming" : mastery];
	if (kind === "current" || kind === "visited") return `${words[kind]}, ${known}`;
	return known;
}

/** The alt text of the plan picture: the nodes and their statuses, at most `maxChars` characters. */
export function planAltText(
	tree: PlanTree,
	statuses: DerivedPlanStatuses,
	mastery?: PlanMastery,
	maxChars: number = PLAN_ALT_MAX_CHARS,
	locale: Locale = DEFAULT_LOCALE,
): string {
	const words = legendWords(locale);
	const order = planReadingOrder(tree);
	const current = order.find((n) => n.id === statuses.current);
	const steps = tn(locale, "count.steps", order.length);
	const now = current ? t(locale, "plan.altNow", { title: oneLine(current.title, ALT_TITLE_CHARS) }) : "";
	const head = t(locale, "plan.alt", { steps, now });
	const bound = Math.max(1, Math.floor(maxChars));
	let text = head;
	for (let k = 0; k < order.length; k++) {
		const n = order[k] as (typeof order)[number];
		const status = statusWords(planNodeKind(statuses, mastery, n.id), nodeMastery(mastery, n.id), words);
		const item = `${k === 0 ? " " : "; "}${oneLine(n.title, ALT_TITLE_CHARS)} (${status})`;
		const left = order.length - k;
		// Keep room for the "and N more" tail (or the final full stop).
		const reserve = left > 1 ? `; ${t(locale, "plan.altMore", { count: left - 1 })}.`.length : 1;
		if (text.length + item.length + reserve > bound) {
			const tail =
				k === 0
					? ` ${t(locale, "plan.altNotListed", { count: left })}`
					: `; ${t(locale, "plan.altMore", { count: left })}.`;
			return text.length + tail.length <= bound ? text + tail : text.slice(0, bound);
		}
		text += item;
	}
	return order.length > 0 && text.length + 1 <= bound ? `${text}.` : text.slice(0, bound);
}
