/**
 * `npm run build`: the production start. Bundles src/cli.ts with esbuild into dist/
 * (ES modules, Node 20, code splitting so the Discord and Slack adapters and their
 * libraries still load only when configured), with every npm package but mathjs left
 * external (resolved from node_modules at run time: native modules and browser bundles
 * stay where they are; mathjs is bundled so its unused factories are shaken out). Files the code reads next to itself (the prompts) are copied beside
 * the bundle. The math sandbox's worker is a second entry (dist/typeset-worker.js).
 * bin/learnharness.js runs dist/ when it is newer than every source file,
 * else the TypeScript sources through tsx.
 */

import { copyFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build, type Plugin } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));
// `--outdir <dir>` builds elsewhere (the build test); it must sit inside the repository, so node_modules resolves.
const flag = process.argv.indexOf("--outdir");
const out = flag > 0 && process.argv[flag + 1] ? resolve(process.argv[flag + 1] ?? "") : join(root, "dist");

/** Files read at run time with `new URL("./<name>", import.meta.url)`: they must sit beside the chunk that reads them. */
const ASSET_DIRS = ["src/agent/prompts"];

/** npm packages bundled (tree-shaken) rather than loaded whole from node_modules at run time. */
const BUNDLED_PACKAGES = ["mathjs"];

/** esbuild's `packages: "external"`, but for `bundled`: bare specifiers resolve from node_modules at run time. */
function externalExcept(bundled: readonly string[]): Plugin {
	const inside = (path: string) => bundled.some((name) => path === name || path.startsWith(`${name}/`));
	return {
		name: "external-except",
		setup(build) {
			build.onResolve({ filter: /^[^./]/ }, (args) => {
				// Only what our sources import directly decides: a bundled package's own imports are bundled with it.
				if (args.importer.includes("/node_modules/")) return undefined;
				if (args.path.startsWith("node:") || inside(args.path)) return undefined;
				return { path: args.path, external: true };
			});
		},
	};
}

const started = performance.now();
rmSync(out, { recursive: true, force: true });
const result = await build({
	absWorkingDir: root,
	// The math sandbox's worker thread is an entry of its own: src/render/math/sandbox.ts starts
	// `./typeset-worker.js` beside the chunk that holds it (every chunk sits in dist/ itself). `math.js` exposes the
	// bundle's math renderer (shared with the CLI's chunks), so a check can draw a formula through the built worker.
	entryPoints: {
		cli: "src/cli.ts",
		"typeset-worker": "src/render/math/typeset-worker.ts",
		math: "src/render/math/renderer.ts",
	},
	outdir: out,
	bundle: true,
	splitting: true,
	format: "esm",
	platform: "node",
	target: "node20",
	// Every npm package stays external but mathjs: bundled, its unused factories shaken out (src/core/math-engine.ts).
	plugins: [externalExcept(BUNDLED_PACKAGES)],
	sourcemap: true,
	// Chunks read files relative to themselves: keep them in dist/ itself, next to the copied assets.
	chunkNames: "chunk-[hash]",
	logLevel: "warning",
	metafile: true,
});
for (const dir of ASSET_DIRS)
	for (const name of readdirSync(join(root, dir)))
		if (!name.endsWith(".ts")) copyFileSync(join(root, dir, name), join(out, name));
// Marks dist/ as built by this script (bin/learnharness.js compares its time with the sources').
writeFileSync(join(out, "BUILT"), `${new Date().toISOString()}\n`);
const files = Object.keys(result.metafile?.outputs ?? {}).filter((f) => f.endsWith(".js")).length;
process.stdout.write(
	`build: ${relative(root, out) || "."}/cli.js and ${files - 2} chunks (and the math worker, typeset-worker.js) in ${Math.round(performance.now() - started)} ms; npm start now runs them\n`,
);
