/**
 * Slack's redeliveries, recognised in the shared store (see lesson/deliveries.ts): an
 * Events API retry (`X-Slack-Retry-Num`, the same `event_id`), a replayed signed request
 * (the same `trigger_id`: a signature is accepted for 5 minutes, the claim lasts longer).
 * A second `/lesson start` typed by hand has its own trigger and runs (after a refusal, a
 * retry must work); starting a second lesson at once is for the lesson rules to allow. Events are acknowledged by Bolt before any middleware, so a duplicate event
 * stops here. Commands, clicks and submissions are acknowledged by their listeners first
 * (ack-first: the store must not delay Slack's 3-second deadline): the claim starts here,
 * and each listener asks `firstDelivery(context)` after its ack.
 */

import type { App, Context } from "@slack/bolt";
import { DELIVERY_TTL_MS } from "../lesson/deliveries.ts";
import type { HandlerContext } from "./context.ts";

const FIRST = "lhFirstDelivery";

const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);

/** The claim a command, click or submission makes: its trigger_id (undefined without one). */
export function deliveryKey(body: Record<string, unknown>): string | undefined {
	const trigger = str(body.trigger_id);
	return trigger ? `slack:trigger:${trigger}` : undefined;
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
		const key = deliveryKey(b);
		if (key) context[FIRST] = claims.claim(key, DELIVERY_TTL_MS.trigger);
		await next();
	});
}

/** Whether this request is the first of its kind (call after ack); true for requests that claim nothing. */
export function firstDelivery(context: Context): Promise<boolean> {
	const first: unknown = context[FIRST];
	return first instanceof Promise ? (first as Promise<boolean>) : Promise.resolve(true);
}
