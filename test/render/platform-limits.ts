/**
 * Independent checkers of Discord and Slack payload limits (numbers from the
 * platforms' API references, written out here rather than imported from
 * src so a wrong constant in src cannot hide a wrong payload).
 */

import type { ModalView } from "@slack/types";
import type { APIModalInteractionResponseCallbackData } from "discord-api-types/v10";
import type { DiscordMessage, SlackMessage } from "../../src/render/index.ts";
import { messageProblems } from "../../testkit/fixtures/discord/limits.ts";

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === "object" && v !== null;

function len(problems: string[], where: string, value: unknown, max: number, min = 1): void {
	if (typeof value !== "string") problems.push(`${where}: not a string`);
	else if (value.length < min || value.length > max)
		problems.push(`${where}: length ${value.length} not in ${min}..${max}`);
}

/** The action rows of a Discord V2 message, wherever they sit (top level or in its container). */
export function discordRows(msg: { components?: unknown }): Array<{ type: number; components: Json[] }> {
	const out: Array<{ type: number; components: Json[] }> = [];
	const walk = (c: unknown): void => {
		if (!isObj(c)) return;
		if (c.type === 1 && Array.isArray(c.components)) out.push(c as unknown as { type: number; components: Json[] });
		else if (Array.isArray(c.components)) for (const k of c.components) walk(k);
	};
	if (Array.isArray(msg.components)) for (const c of msg.components) walk(c);
	return out;
}

/** Every interactive component of a Discord V2 message: buttons and selects in rows, and section accessories, in order. */
export function discordControls(msg: { components?: unknown }): Json[] {
	const out: Json[] = [];
	const walk = (c: unknown): void => {
		if (!isObj(c)) return;
		if (c.type === 2 || c.type === 3) out.push(c);
		if (Array.isArray(c.components)) for (const k of c.components) walk(k);
		if (isObj(c.accessory) && c.accessory.type === 2) out.push(c.accessory);
	};
	if (Array.isArray(msg.components)) for (const c of msg.components) walk(c);
	return out;
}

/**
 * Problems of one Discord message body; empty = valid. Components V2 (the flag set, no content, at most 40
 * components, 4,000 characters of text): the fake Discord's checker (testkit), which cites Discord's docs.
 */
export function discordMessageProblems(msg: DiscordMessage): string[] {
	const p: string[] = [];
	if ((msg.flags & (1 << 15)) === 0) p.push("not sent with IS_COMPONENTS_V2");
	if ("content" in msg) p.push("a V2 message has no content");
	const files = (msg.files ?? []).map((f) => f.name);
	p.push(...messageProblems(msg, files.length, false, files));
	// Our own budget, stricter than Discord's: five rows of controls at most.
	if (discordRows(msg).length > 5) p.push(`${discordRows(msg).length} rows > 5`);
	const am = msg.allowed_mentions as Json | undefined;
	if (!isObj(am) || !Array.isArray(am.parse) || am.parse.length !== 0) p.push("allowed_mentions must be { parse: [] }");
	return p;
}

/** Problems of a Discord modal; empty = valid. */
export function discordModalProblems(modal: APIModalInteractionResponseCallbackData): string[] {
	const p: string[] = [];
	len(p, "modal custom_id", modal.custom_id, 100);
	len(p, "modal title", modal.title, 45);
	if (modal.components.length < 1 || modal.components.length > 5) p.push("modal components not 1..5");
	for (const c of modal.components as unknown as Json[]) {
		if (c.type === 10) len(p, "text display", c.content, 4000);
		else if (c.type === 18) {
			len(p, "label", c.label, 45);
			if (c.description !== undefined) len(p, "label description", c.description, 100);
			const input = c.component as Json;
			len(p, "label child custom_id", input.custom_id, 100);
			if (input.type === 19) {
				// File upload (discord-api-docs, Component Reference): 0..10 files; min_values 0 only when not required.
				const min = typeof input.min_values === "number" ? input.min_values : 1;
				const max = typeof input.max_values === "number" ? input.max_values : 1;
				if (min < 0 || max < 1 || max > 10 || min > max) p.push("file upload min/max out of range");
				if (min === 0 && input.required !== false) p.push("file upload with min_values 0 must not be required");
				continue;
			}
			if (input.type !== 4) p.push("label does not hold a text input or a file upload");
			if (input.label !== undefined) p.push("text input inside a label must not have its own label");
			if (typeof input.max_length === "number" && input.max_length > 4000) p.push("text input max_length > 4000");
		} else p.push(`unexpected modal component ${String(c.type)}`);
	}
	return p;
}

function plainText(p: string[], where: string, t: unknown, max: number): void {
	if (!isObj(t) || t.type !== "plain_text") p.push(`${where}: not plain_text`);
	else len(p, where, t.text, max);
}

function textObject(p: string[], where: string, t: unknown, max: number): void {
	if (!isObj(t) || (t.type !== "plain_text" && t.type !== "mrkdwn")) p.push(`${where}: not a text object`);
	else len(p, where, t.text, max);
}

function slackBlocks(p: string[], blocks: readonly unknown[]): void {
	const actionIds = new Set<string>();
	blocks.forEach((b, i) => {
		if (!isObj(b)) {
			p.push(`block ${i} not an object`);
			return;
		}
		if (b.block_id !== undefined) len(p, `block ${i} block_id`, b.block_id, 255);
		if (b.type === "section") {
			textObject(p, `section ${i} text`, b.text, 3000);
			if (b.accessory !== undefined) p.push("unexpected accessory");
		} else if (b.type === "header") plainText(p, `header ${i}`, b.text, 150);
		else if (b.type === "context") {
			const els = b.elements as unknown[];
			if (els.length < 1 || els.length > 10) p.push("context elements not 1..10");
			for (const e of els) textObject(p, `context ${i}`, e, 3000);
		} else if (b.type === "actions") {
			const els = b.elements as Json[];
			if (els.length < 1 || els.length > 25) p.push(`actions with ${els.length} elements`);
			for (const e of els) {
				len(p, "action_id", e.action_id, 255);
				if (typeof e.action_id === "string") {
					if (actionIds.has(e.action_id)) p.push(`duplicate action_id ${e.action_id}`);
					actionIds.add(e.action_id);
				}
				if (e.type === "button") {
					plainText(p, "button text", e.text, 75);
					if (e.value !== undefined) len(p, "button value", e.value, 2000);
					if (e.style !== undefined && e.style !== "primary" && e.style !== "danger") p.push("bad button style");
				} else if (e.type === "static_select") {
					const options = e.options as Json[];
					if (options.length < 1 || options.length > 100) p.push(`static_select with ${options.length} options`);
					if (e.placeholder !== undefined) plainText(p, "select placeholder", e.placeholder, 150);
					for (const o of options) {
						plainText(p, "option text", o.text, 75);
						len(p, "option value", o.value, 150);
						if (o.description !== undefined) plainText(p, "option description", o.description, 75);
					}
				} else p.push(`unexpected element ${String(e.type)}`);
			}
		} else if (b.type === "input") {
			plainText(p, "input label", b.label, 2000);
			const el = b.element as Json;
			if (el.type !== "plain_text_input") p.push("input element not plain_text_input");
			len(p, "input action_id", el.action_id, 255);
			if (typeof el.max_length === "number" && el.max_length > 3000) p.push("max_length > 3000");
		} else p.push(`unexpected block type ${String(b.type)}`);
	});
}

/** Problems of one Slack message; empty = valid. */
export function slackMessageProblems(msg: SlackMessage): string[] {
	const p: string[] = [];
	len(p, "text", msg.text, 3000);
	if (msg.blocks.length < 1 || msg.blocks.length > 50) p.push(`${msg.blocks.length} blocks not in 1..50`);
	slackBlocks(p, msg.blocks);
	return p;
}

/** Problems of a Slack modal view; empty = valid. */
export function slackModalProblems(view: ModalView): string[] {
	const p: string[] = [];
	plainText(p, "modal title", view.title, 24);
	if (view.submit !== undefined) plainText(p, "modal submit", view.submit, 24);
	if (view.close !== undefined) plainText(p, "modal close", view.close, 24);
	if (view.callback_id !== undefined) len(p, "callback_id", view.callback_id, 255);
	if (view.private_metadata !== undefined) len(p, "private_metadata", view.private_metadata, 3000, 0);
	if (view.blocks.length < 1 || view.blocks.length > 100) p.push("modal blocks not 1..100");
	if (view.blocks.some((b) => b.type === "input") && view.submit === undefined) p.push("input without submit");
	slackBlocks(p, view.blocks);
	return p;
}
