/**
 * The plan picture in the terminal: the PNG written under data/plans as
 * `<session>-<n>.png` (its path printed), plus the text outline, which is all
 * that shows when no picture can be made (no Chromium, a render error).
 */

import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import type { Logger } from "../../core/contracts/logger.ts";
import type { DerivedPlanStatuses, PlanTree } from "../../core/contracts/plan.ts";
import { type PlanRenderer, planCaption, planOutline } from "../../render/index.ts";

/** Numbered picture files of one session; numbering continues after a resume. */
export class PlanPictures {
	readonly written: string[] = [];
	/** Why pictures failed, said once (the outline alone after that). */
	readonly failures = new Set<string>();
	private readonly prefix: string;
	private next: number | undefined;

	constructor(
		private readonly dir: string,
		sessionId: string,
	) {
		// Colons are awkward in file names (and invalid on Windows).
		this.prefix = sessionId.replace(/[^A-Za-z0-9._-]+/g, "-");
	}

	/** Writes the PNG and returns its path (relative to the working directory when inside it). */
	save(png: Buffer): string {
		mkdirSync(this.dir, { recursive: true });
		this.next ??= this.existingCount() + 1;
		const file = join(this.dir, `${this.prefix}-${this.next++}.png`);
		writeFileSync(file, png);
		this.written.push(file);
		const rel = relative(process.cwd(), resolve(file));
		return rel.startsWith("..") ? resolve(file) : rel;
	}

	private existingCount(): number {
		const pattern = new RegExp(`^${this.prefix.replace(/[.]/g, "\\.")}-(\\d+)\\.png$`);
		let max = 0;
		for (const name of readdirSync(this.dir)) {
			const n = Number(pattern.exec(name)?.[1] ?? 0);
			if (n > max) max = n;
		}
		return max;
	}
}

/**
 * The outline (or, `compact`, just its caption line: the learner moved on in
 * a map already shown), then where the picture was saved or why there is
 * none. Never throws.
 */
export async function renderPlanForTerminal(
	tree: PlanTree,
	statuses: DerivedPlanStatuses,
	renderer: PlanRenderer | undefined,
	pictures: PlanPictures | undefined,
	logger: Logger,
	compact = false,
): Promise<string> {
	const outline = compact ? planCaption(tree, statuses) : planOutline(tree, statuses);
	if (!renderer || !pictures) return outline;
	try {
		const picture = await renderer.renderPlan(tree, statuses);
		if (!picture.png) return withFailure(outline, picture.error ?? "the renderer made none", pictures);
		const path = pictures.save(picture.png);
		return `${outline}\nPlan picture: ${path}`;
	} catch (error) {
		logger.warn({ err: error }, "plan picture failed");
		return withFailure(outline, error instanceof Error ? error.message : String(error), pictures);
	}
}

function withFailure(outline: string, why: string, pictures: PlanPictures): string {
	if (pictures.failures.has(why)) return outline;
	pictures.failures.add(why);
	return `${outline}\n(no picture: ${why})`;
}
