/** Helpers of the sharding tests: the process tree's log, bounded waits on it, and duplicate checks. */

import type { FakeMessage } from "../../../testkit/fakes/discord.ts";
import type { CliChild } from "../../fixtures/child-process.ts";

/** The pino JSON lines of the output (other lines skipped). */
export function logLines(output: string): Array<Record<string, unknown>> {
	return output.split("\n").flatMap((line) => {
		if (!line.startsWith("{")) return [];
		try {
			return [JSON.parse(line) as Record<string, unknown>];
		} catch {
			return [];
		}
	});
}

/** Resolves once the output matches `pattern`; rejects with the output when the process exits first or at `timeoutMs`. */
export async function untilOutput(cli: CliChild, pattern: RegExp, timeoutMs: number): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (!pattern.test(cli.output())) {
		if (cli.child.exitCode !== null || cli.child.signalCode !== null)
			throw new Error(
				`learnharness exited (${cli.child.exitCode ?? cli.child.signalCode}):\n${cli.output().slice(-4000)}`,
			);
		if (Date.now() > deadline) throw new Error(`no ${pattern} within ${timeoutMs} ms:\n${cli.output().slice(-4000)}`);
		await new Promise((resolve) => setTimeout(resolve, 100));
	}
}

/** Like Promise.all, with the first failure rewritten by `wrap` (e.g. to add the process output). */
export async function allOf<T>(promises: Array<Promise<T>>, wrap: (error: unknown) => Error): Promise<T[]> {
	try {
		return await Promise.all(promises);
	} catch (error) {
		throw wrap(error);
	}
}

/** Control ids (lh:…) that sit on more than one message of a thread: a quiz or card posted twice. */
export function componentIdsOnTwoMessages(messages: FakeMessage[]): string[] {
	const seen = new Map<string, number>();
	for (const m of messages) {
		const ids = new Set(
			(m.components as Array<{ components?: Array<{ custom_id?: string }> }>)
				.flatMap((row) => row.components ?? [])
				.flatMap((c) => (c.custom_id?.startsWith("lh:") ? [c.custom_id] : [])),
		);
		for (const id of ids) seen.set(id, (seen.get(id) ?? 0) + 1);
	}
	return [...seen].filter(([, n]) => n > 1).map(([id]) => id);
}
