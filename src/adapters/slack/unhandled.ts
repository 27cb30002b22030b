/**
 * Interactive payloads no listener of ours takes (a `view_closed`, a shortcut, an options request, a
 * button or a view another app version left behind) are acknowledged at once. Without a listener Bolt
 * answers 404, and only after its 3-second timeout, by which time Slack has shown the person an error.
 */

import type { AckFn, App } from "@slack/bolt";
import { END_ACTION_ID, HOME_REVIEW_ACTION_ID } from "./messages.ts";

/** Our block actions' ids (controls.ts). */
const OUR_ACTION = /^lh:(?:pick|select|open|help):/;
/** Our answer forms' callback ids. */
const OUR_VIEW = "lh:modal:";
/** Interactive payload types we never listen to. */
const NEVER_OURS = new Set(["view_closed", "shortcut", "message_action", "block_suggestion"]);

const str = (v: unknown): string => (typeof v === "string" ? v : "");

/** True when a payload is interactive and no listener of ours would acknowledge it. */
export function unhandledInteraction(body: Record<string, unknown>): boolean {
	const type = str(body.type);
	if (NEVER_OURS.has(type)) return true;
	if (type === "block_actions") {
		const actions = Array.isArray(body.actions) ? body.actions : [];
		return !actions.some((a) => {
			const id = str((a as { action_id?: unknown } | null)?.action_id);
			return OUR_ACTION.test(id) || id === END_ACTION_ID || id === HOME_REVIEW_ACTION_ID;
		});
	}
	if (type === "view_submission")
		return !str((body.view as { callback_id?: unknown } | null)?.callback_id).startsWith(OUR_VIEW);
	return false;
}

/** Register the acknowledgement of what no listener takes (first: before the duplicate filter claims it). */
export function registerUnhandledAck(app: App): void {
	app.use(async (args) => {
		const ack = (args as { ack?: AckFn<unknown> }).ack;
		if (ack && unhandledInteraction(args.body as unknown as Record<string, unknown>)) return void (await ack());
		await args.next();
	});
}
