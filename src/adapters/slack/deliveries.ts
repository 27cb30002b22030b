/**
 * Slack's redeliveries, recognised in the shared store (see lesson/deliveries.ts): an
 * Events API retry (`X-Slack-Retry-Num`, the same `event_id`), a replayed signed request
 * (the same `trigger_id`), and the same person's `/lesson start` sent twice within a few
 * seconds. Events are acknowledged by Bolt before any middleware, so a duplicate event
 * stops here. Commands, clicks and submissions are acknowledged by their listeners first
 * (ack-first: the store must not delay Slack's 3-second deadline): the claim starts here,
 * and each listener asks `firstDelivery(context)` after its ack.
 */

import type { App, Context } from "@slack/bolt";
import { DELIVERY_TTL_MS } from "../lesson/deliveries.ts";
import type { HandlerContext } from "./context.ts";

const FIRST = "lhFirstDelivery";

const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);

/** The claims a request makes: its trigger, and for `/lesson start` what it asks for (a double submit). */
export function deliveryKeys(body: Record<string, unknown>): Array<{ key: string; ttlMs: number }> {
	const keys: Array<{ key: string; ttlMs: number }> = [];
	const trigger = str(body.trigger_id);
	if (trigger) keys.push({ key: `slack:trigger:${trigger}`, ttlMs: DELIVERY_TTL_MS.trigger });
	const text = typeof body.text === "string" ? body.text.trim().replace(/\s+/g, " ").toLowerCase() : "";
	if (str(body.command) && /^start\b/.test(text)) {
		const who = [body.team_id, body.channel_id, body.user_id].map((v) => str(v) ?? "-").join(":");
		keys.push({ key: `slack:command:${who}:${body.command}:${text}`, ttlMs: DELIVERY_TTL_MS.command });
	}
	return keys;
}

/** Register the duplicate filter (before every listener). */
export function registerDeliveryGuard(app: App, ctx: HandlerContext): void {
	const claims = ctx.controller.deliveries;
	app.use(async ({ body, context, next }) => {
		const b = body as unknown as Record<string, unknown>;
		if (b.type === "event_callback") {
			const id = str(b.event_id);
			if (id && !(await claims.claim(`slack:event:${id}`, DELIVERY_TTL_MS.event))) {
				ctx.logger.info({ eventId: id, retryNum: context.retryNum }, "slack: ignored a redelivered event");
				return;
			}
			return next();
		}
		const keys = deliveryKeys(b);
		if (keys.length > 0)
			context[FIRST] = (async () => {
				for (const { key, ttlMs } of keys) if (!(await claims.claim(key, ttlMs))) return false;
				return true;
			})();
		await next();
	});
}

/** Whether this request is the first of its kind (call after ack); true for requests that claim nothing. */
export function firstDelivery(context: Context): Promise<boolean> {
	const first: unknown = context[FIRST];
	return first instanceof Promise ? (first as Promise<boolean>) : Promise.resolve(true);
}
