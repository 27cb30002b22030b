/**
 * Interaction endpoints (the callback that acknowledges a click, the interaction's webhook for
 * `@original` and follow-ups) are outside Discord's global rate limit of 50 requests a second,
 * but discord.js's REST counts every request it sends against its local copy of that limit. So
 * under load a click's acknowledgement would queue behind typing indicators and channel posts and
 * miss Discord's 3-second deadline. These requests go through a REST of their own (no token: the
 * interaction token in the URL is the auth), one per client, without the local global count (the
 * per-route buckets Discord announces still apply), whose rate limits, retries and responses still
 * reach the client's REST listeners (client.ts logs them).
 */

import {
	type ButtonInteraction,
	type Client,
	InteractionResponseType,
	type ModalSubmitInteraction,
	REST,
	RESTEvents,
	Routes,
	type StringSelectMenuInteraction,
} from "discord.js";

const perClient = new WeakMap<Client, REST>();

/** The interaction REST's local "global" count: high, since Discord's global limit leaves interaction routes out. */
const INTERACTION_REQUESTS_PER_SECOND = 10_000;

/** The client's REST for interaction endpoints. */
export function interactionRest(client: Client): REST {
	let rest = perClient.get(client);
	if (!rest) {
		// discord.js counts every request against its local global limit (50 a second), interaction routes too: at
		// 1,000 lessons in one process the clicks' acknowledgements and follow-ups alone passed it and queued
		// (bench:scale, ack p50 447 ms). Discord does not count them, so neither does this REST.
		const own = new REST({ ...client.options.rest, globalRequestsPerSecond: INTERACTION_REQUESTS_PER_SECOND });
		own.on(RESTEvents.RateLimited, (info) => client.rest.emit(RESTEvents.RateLimited, info));
		own.on(RESTEvents.InvalidRequestWarning, (info) => client.rest.emit(RESTEvents.InvalidRequestWarning, info));
		own.on(RESTEvents.Response, (request, response) => client.rest.emit(RESTEvents.Response, request, response));
		perClient.set(client, own);
		rest = own;
	}
	return rest;
}

/**
 * Acknowledge a component click (or a modal submitted from a card) with "the message will be
 * updated" (what `interaction.deferUpdate()` sends), through the interaction REST; discord.js is
 * told it was deferred, so its follow-ups and edits work as after its own deferUpdate.
 */
export async function deferUpdate(
	interaction: ButtonInteraction | StringSelectMenuInteraction | ModalSubmitInteraction,
): Promise<void> {
	if (interaction.deferred || interaction.replied) throw new Error("the interaction was already acknowledged");
	await interactionRest(interaction.client).post(Routes.interactionCallback(interaction.id, interaction.token), {
		body: { type: InteractionResponseType.DeferredMessageUpdate },
		auth: false,
	});
	interaction.deferred = true;
}
