/**
 * The SQLite store's folder, made ready before the store opens it. Node's
 * recursive mkdir never returns under /proc (it retries ENOENT forever, and
 * the sync form blocks the event loop, so no timeout can fire): we create the
 * folder one level at a time instead, which fails with a plain error there.
 */

import { mkdir, stat } from "node:fs/promises";
import { dirname } from "node:path";
import { sqliteFileOf, systemFolderOf } from "../config/store-path.ts";

/**
 * Creates the folder of a sqlite:// store one level at a time (no recursive
 * mkdir); nothing to do for other backends. Throws a plain Error naming the
 * folder and why.
 */
export async function prepareStoreFolder(url: string): Promise<void> {
	const file = sqliteFileOf(url);
	if (file === undefined) return;
	const system = systemFolderOf(file);
	if (system !== undefined) throw new Error(`${file} is under ${system}, a system folder that cannot hold files`);
	const missing: string[] = [];
	for (let dir = dirname(file); ; dir = dirname(dir)) {
		const kind = await stat(dir).then(
			(s) => (s.isDirectory() ? "dir" : "other"),
			(error: NodeJS.ErrnoException) => (error.code === "ENOENT" ? "missing" : Promise.reject(error)),
		);
		if (kind === "dir") break;
		if (kind === "other") throw new Error(`${dir} is not a folder`);
		missing.unshift(dir);
		if (dirname(dir) === dir || missing.length > 64) break;
	}
	for (const dir of missing)
		await mkdir(dir).catch((error: NodeJS.ErrnoException) => {
			if (error.code !== "EEXIST") throw new Error(`cannot create the folder ${dir} (${error.code ?? error.message})`);
		});
}
