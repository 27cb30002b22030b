/**
 * A PlanRenderer double for tests that are not about pictures: a fixed PNG (or none),
 * keyed by the plan state so identical states dedupe like the real renderer's.
 */

import type { DerivedPlanStatuses, PlanTree } from "../src/core/contracts/plan.ts";
import type { Locale } from "../src/i18n/index.ts";
import {
	type PlanMastery,
	type PlanPicture,
	type PlanRenderer,
	planAltText,
	planCaption,
} from "../src/render/index.ts";

/** A renderer returning `png` (or no picture, with an error) for every plan. */
export function stubRenderer(png: Buffer | undefined): PlanRenderer & { renders: number } {
	const self = {
		renders: 0,
		async renderPlan(
			tree: PlanTree,
			statuses: DerivedPlanStatuses,
			mastery?: PlanMastery,
			locale?: Locale,
		): Promise<PlanPicture> {
			self.renders++;
			const key = `${tree.version}:${statuses.current ?? "-"}${locale && locale !== "en" ? `:${locale}` : ""}`;
			const outline = tree.nodes.map((n) => `${n.id === statuses.current ? "▶" : "•"} ${n.title}`).join("\n");
			// The real alt text and caption (pure), in the lesson's language, as the renderer would give them.
			const alt = planAltText(tree, statuses, mastery, undefined, locale);
			const caption = planCaption(tree, statuses, mastery, locale);
			const picture: PlanPicture = { key, caption, outline, alt };
			if (png) picture.png = png;
			else picture.error = "no browser in this test";
			return picture;
		},
		async renderMermaid(): Promise<Buffer> {
			throw new Error("not in this test");
		},
		stats: () => ({
			launches: 0,
			renders: self.renders,
			cacheHits: 0,
			failures: 0,
			blockedRequests: 0,
			blockedUrls: [],
		}),
		async close() {},
	};
	return self;
}
