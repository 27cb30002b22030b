/**
 * Regenerates the README's and docs' example pictures (`npx tsx scripts/example-pictures.ts`): the
 * calculus lesson map as posted (transparent, docs/example-plan.png), the same map on Discord's dark
 * theme (docs/example-plan-dark.png), and a progress picture (docs/example-progress.png). Needs
 * Chromium (`npm run setup`). Prints each picture's size.
 */

import { writeFileSync } from "node:fs";
import { createPlanRenderer } from "../src/render/index.ts";
import { renderProgressPng } from "../src/render/progress-image.ts";
import { calculusPlan, calculusStatuses } from "../testkit/plans.ts";

const mastery = { limits: "learned", deriv: "learned", power: "shaky" } as const;
const size = (png: Buffer): string => `${png.readUInt32BE(16)}x${png.readUInt32BE(20)}`;

async function main(): Promise<void> {
	for (const [file, background] of [
		["docs/example-plan.png", undefined],
		["docs/example-plan-dark.png", "#313338"],
	] as const) {
		const renderer = createPlanRenderer(background === undefined ? {} : { background });
		try {
			const picture = await renderer.renderPlan(calculusPlan, calculusStatuses, mastery);
			if (picture.png === undefined) throw new Error(picture.error ?? "no picture");
			writeFileSync(file, picture.png);
			process.stdout.write(`${file} ${size(picture.png)}\n`);
		} finally {
			await renderer.close();
		}
	}
	const progress = await renderProgressPng({
		topics: [
			{ topic: "Calculus", learned: 2, shaky: 1, notYet: 2, due: 1 },
			{ topic: "Spanish verbs", learned: 5, shaky: 0, notYet: 1, due: 0 },
		],
		days: {
			"2026-11-20": { lessons: 1, reviews: 0 },
			"2026-11-24": { lessons: 0, reviews: 2 },
			"2026-12-01": { lessons: 1, reviews: 1 },
			"2026-12-02": { lessons: 0, reviews: 3 },
		},
		today: new Date("2026-12-03T12:00:00Z"),
	});
	writeFileSync("docs/example-progress.png", progress);
	process.stdout.write(`docs/example-progress.png ${size(progress)}\n`);
}

await main();
