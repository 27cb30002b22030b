/**
 * The plan pictures of a terminal lesson: each PNG written under data/plans
 * as `<session>-<n>.png` (the port prints its path under the outline).
 */

import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";

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
