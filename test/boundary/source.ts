/**
 * Reading the source for the boundary tests: every .ts file under a folder, the imports of a file
 * (type-only and dynamic ones included), where a relative import lands, and the import graph of src/.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const src = join(root, "src");

/** One import of a file: what it names, and whether it is `import type` / `export type`. */
export interface ImportRef {
	specifier: string;
	typeOnly: boolean;
}

/** Every .ts file under `dir` (none when it does not exist). */
export function filesUnder(dir: string): string[] {
	if (!existsSync(dir)) return [];
	return readdirSync(dir).flatMap((name) => {
		const path = join(dir, name);
		return statSync(path).isDirectory() ? filesUnder(path) : path.endsWith(".ts") ? [path] : [];
	});
}

/** Static imports, re-exports and dynamic imports of a file. */
export function importsOf(code: string): ImportRef[] {
	const refs: ImportRef[] = [];
	const statics = /^\s*(import|export)\s+(type\s+)?[^'"]*?from\s+["']([^"']+)["']/gm;
	for (const m of code.matchAll(statics)) refs.push({ specifier: m[3]!, typeOnly: m[2] !== undefined });
	for (const m of code.matchAll(/^\s*import\s+["']([^"']+)["']/gm)) refs.push({ specifier: m[1]!, typeOnly: false });
	for (const m of code.matchAll(/import\(\s*["']([^"']+)["']\s*\)/g)) refs.push({ specifier: m[1]!, typeOnly: false });
	return refs;
}

/** Where a relative import of `fromFile` lands, relative to src/ (`agent/engine/pump.ts`). */
export function targetOf(fromFile: string, specifier: string): string {
	return relative(src, resolve(dirname(fromFile), specifier));
}

/** `file`, relative to the repository (for messages). */
export const shown = (file: string): string => relative(root, file);

/** The import graph of src/: each file (relative to src/) and the src files it imports, type-only ones included. */
export function importGraph(): Map<string, string[]> {
	const graph = new Map<string, string[]>();
	for (const file of filesUnder(src)) {
		const targets = importsOf(readFileSync(file, "utf8"))
			.filter((ref) => ref.specifier.startsWith("."))
			.map((ref) => targetOf(file, ref.specifier.replace(/\.js$/, ".ts")));
		graph.set(relative(src, file), [...new Set(targets)]);
	}
	return graph;
}
