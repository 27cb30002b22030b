#!/usr/bin/env node
// The `learnharness` command: runs the bundle in dist/ (`npm run build`) when it is newer than every
// source file, else the TypeScript sources through tsx's loader (no build step needed).
// LEARNHARNESS_FROM_SOURCE=1 always runs the sources.
import { existsSync, readdirSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

/** Newest modification time (ms) of the files under `dir` (bounded: a source tree, not the disk). */
function newest(dir, depth = 0) {
	let latest = 0;
	if (depth > 8) return latest;
	for (const entry of readdirSync(dir, { withFileTypes: true })) {
		const path = `${dir}/${entry.name}`;
		const time = entry.isDirectory() ? newest(path, depth + 1) : statSync(path).mtimeMs;
		if (time > latest) latest = time;
	}
	return latest;
}

/** dist/ exists and was built after the last change to src/ and package.json. */
function distIsFresh() {
	if (process.env.LEARNHARNESS_FROM_SOURCE === "1") return false;
	const built = `${root}dist/BUILT`;
	if (!existsSync(built) || !existsSync(`${root}dist/cli.js`)) return false;
	try {
		const at = statSync(built).mtimeMs;
		return at >= newest(`${root}src`) && at >= statSync(`${root}package.json`).mtimeMs;
	} catch {
		return false;
	}
}

if (distIsFresh()) {
	await import("../dist/cli.js");
} else {
	const { register } = await import("tsx/esm/api");
	register();
	await import("../src/cli.ts");
}
