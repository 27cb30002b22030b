/**
 * One process per SQLite store: a lock file beside the database (`<file>.lock`, holding the
 * owner's process id). The SQLite store keeps versions and leases in memory (its fast path),
 * so a second process on the same file would write over the first's lessons; it is refused
 * at start instead, with a sentence saying which process holds the file. A lock left by a
 * process that is gone (killed, crashed) is taken over. Stores opened by one process share
 * the lock (counted), and it is removed when the last one closes or the process exits.
 */

import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import { resolve } from "node:path";
import { StoreError } from "./errors.ts";

const held = new Map<string, number>();
let exitHook = false;

/** True when a process with this id runs (signal 0 checks without signalling). */
function alive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		// EPERM: it runs, under another user.
		return (error as NodeJS.ErrnoException).code === "EPERM";
	}
}

/** The process id in a lock file, or undefined when unreadable. */
function ownerOf(lockPath: string): number | undefined {
	try {
		const pid = Number.parseInt(readFileSync(lockPath, "utf8").trim(), 10);
		return Number.isInteger(pid) && pid > 0 ? pid : undefined;
	} catch {
		return undefined;
	}
}

/**
 * Lock the SQLite file `path` for this process, or throw a StoreError (`store-unavailable`)
 * naming the other process. Returns the unlock (call it once per lock). `:memory:` needs none.
 */
export function lockSqliteFile(path: string): () => void {
	if (path === ":memory:") return () => {};
	const lockPath = `${resolve(path)}.lock`;
	const count = held.get(lockPath);
	if (count !== undefined) {
		held.set(lockPath, count + 1);
		return once(() => unlock(lockPath));
	}
	for (let attempt = 0; attempt < 3; attempt++) {
		try {
			const fd = openSync(lockPath, "wx");
			writeSync(fd, `${process.pid}\n`);
			closeSync(fd);
			held.set(lockPath, 1);
			if (!exitHook) {
				exitHook = true;
				process.once("exit", () => {
					for (const lock of held.keys()) removeQuietly(lock);
				});
			}
			return once(() => unlock(lockPath));
		} catch (error) {
			const code = (error as NodeJS.ErrnoException).code;
			if (code !== "EEXIST")
				throw new StoreError(
					"store-unavailable",
					`Cannot create the lock file ${lockPath} (${code ?? String(error)})`,
					{
						cause: error,
					},
				);
			const owner = ownerOf(lockPath);
			if (owner !== undefined && owner !== process.pid && alive(owner))
				throw new StoreError(
					"store-locked",
					`The SQLite store ${path} is already used by another learnharness process (pid ${owner}). ` +
						"A SQLite store serves one process: stop the other one, or use a Redis or PostgreSQL store " +
						`(LEARNHARNESS_STORE_URL) to run several. If no such process runs, delete ${lockPath}`,
				);
			// Left by a process that is gone (or half written): take it over.
			removeQuietly(lockPath);
		}
	}
	throw new StoreError("store-unavailable", `Could not lock the SQLite store ${path} (${lockPath})`);
}

function unlock(lockPath: string): void {
	const count = held.get(lockPath) ?? 0;
	if (count > 1) held.set(lockPath, count - 1);
	else {
		held.delete(lockPath);
		if (ownerOf(lockPath) === process.pid) removeQuietly(lockPath);
	}
}

function removeQuietly(lockPath: string): void {
	try {
		unlinkSync(lockPath);
	} catch {
		// Gone already.
	}
}

function once(fn: () => void): () => void {
	let done = false;
	return () => {
		if (done) return;
		done = true;
		fn();
	};
}
