/**
 * The SQLite store's folder, made ready before the store opens it, with an
 * error an admin can act on: a path under /proc, /sys or /dev is refused
 * (nothing can live there), and the folder is created one level at a time
 * (the store's makeFolder: Node's recursive mkdir never returns under /proc).
 */

import { dirname } from "node:path";
import { makeFolder } from "../agent/index.ts";
import { sqliteFileOf, systemFolderOf } from "../config/store-path.ts";

/**
 * Creates the folder of a sqlite:// store; nothing to do for other backends.
 * Throws a plain Error naming the folder and why.
 */
export async function prepareStoreFolder(url: string): Promise<void> {
	const file = sqliteFileOf(url);
	if (file === undefined) return;
	const system = systemFolderOf(file);
	if (system !== undefined) throw new Error(`${file} is under ${system}, a system folder that cannot hold files`);
	makeFolder(dirname(file));
}
