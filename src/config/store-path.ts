/**
 * Where a sqlite:// store URL puts its file, and whether that is a place for
 * files at all (shared by the configuration check and the store's folder setup).
 */

import { resolve, sep } from "node:path";
import { sqlitePathOf } from "../agent/store/store-url.ts";

/** Folders no store file belongs in (virtual filesystems; Node's recursive mkdir loops forever in /proc). */
export const SYSTEM_FOLDERS = ["/proc", "/sys", "/dev"] as const;

/** The SQLite file of a `sqlite://` URL (parsed by the store itself), absolute; undefined for other backends, `:memory:` and no file. */
export function sqliteFileOf(url: string, cwd = process.cwd()): string | undefined {
	if (!url.startsWith("sqlite://")) return undefined;
	let path: string;
	try {
		path = sqlitePathOf(url);
	} catch {
		return undefined; // no file named: the store reports it when it opens
	}
	return path === ":memory:" ? undefined : resolve(cwd, path);
}

/** The system folder a path lies in, if any. */
export function systemFolderOf(path: string): string | undefined {
	return SYSTEM_FOLDERS.find((folder) => path === folder || path.startsWith(`${folder}${sep}`));
}
