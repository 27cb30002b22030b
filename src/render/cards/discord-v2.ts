/**
 * Discord Components V2 building blocks (discord.com/developers/docs/components/reference,
 * "Using Message Components"): a message sent with the IS_COMPONENTS_V2 flag (1 << 15) has no
 * `content` or `embeds`; its text lives in text displays (type 10, at most 4,000 characters across
 * the whole message), its pictures in media galleries (type 12, each item naming an uploaded file as
 * `attachment://<filename>`, with its alt text as `description`), grouped in a container (type 17)
 * with an accent colour; at most 40 components in total, nested ones included. The flag cannot be
 * removed by an edit, so every edit of such a message sends it again.
 */

import {
	type APIActionRowComponent,
	type APIAllowedMentions,
	type APIButtonComponentWithCustomId,
	type APIComponentInContainer,
	type APIComponentInMessageActionRow,
	type APIContainerComponent,
	type APIMediaGalleryComponent,
	type APIMessageTopLevelComponent,
	type APISectionComponent,
	type APISeparatorComponent,
	type APITextDisplayComponent,
	ComponentType,
	MessageFlags,
	SeparatorSpacingSize,
} from "discord-api-types/v10";

/** The message flag that turns Components V2 on (1 << 15). */
export const IS_COMPONENTS_V2 = MessageFlags.IsComponentsV2;

/** Components V2 message limits (Discord's component reference). */
export const DISCORD_V2_LIMITS = {
	/** Every component of a message counts, nested ones included. */
	totalComponents: 40,
	/** All text displays of a message together. */
	textChars: 4000,
	/** Components directly in a container. */
	containerComponents: 10,
	/** Items of one media gallery. */
	galleryItems: 10,
	/** Alt text of one media gallery item. */
	galleryDescriptionChars: 1024,
} as const;

/** A Discord action row of buttons or a select. */
export type DiscordActionRow = APIActionRowComponent<APIComponentInMessageActionRow>;

/** A file a message uploads (multipart), named by one of its `attachments`. */
export interface DiscordFile {
	name: string;
	data: Buffer;
	contentType: string;
}

/** One Discord message: a Components V2 REST create/edit body, plus the files its `attachments` name (send them multipart). */
export interface DiscordMessage {
	/** Always IS_COMPONENTS_V2 (an edit keeps it: Discord cannot remove it). */
	flags: number;
	/** One container (the card), never empty. */
	components: APIMessageTopLevelComponent[];
	/** Always `{ parse: [] }`: model text never pings anyone. */
	allowed_mentions: APIAllowedMentions;
	/** Attachment metadata: `description` is the alt text (a formula's TeX, the map's outline). */
	attachments?: Array<{ id: number; filename: string; description?: string }>;
	/** Not part of the JSON body: the bytes of each attachment, in the same order. */
	files?: DiscordFile[];
}

/**
 * Accent colours: the status of the node a card is about, as the card knows it. Blurple: being learned now (an
 * open question, an explanation); green: got it; amber: shaky (a miss, "not sure", a revealed answer); purple: a
 * prediction (a guess, never right or wrong); red: an error; grey: neutral (notices, the assessment, a check pending).
 */
export const ACCENT = {
	current: 0x5865f2,
	learned: 0x23a55a,
	shaky: 0xf0b232,
	prediction: 0x9b59b6,
	error: 0xf23f43,
	neutral: 0x80848e,
} as const;

/** One accent of ACCENT. */
export type Accent = (typeof ACCENT)[keyof typeof ACCENT];

/** A text display (markdown). */
export const textDisplay = (content: string): APITextDisplayComponent => ({ type: ComponentType.TextDisplay, content });

/** A thin divider between the card's text and its controls. */
export const separator = (): APISeparatorComponent => ({
	type: ComponentType.Separator,
	divider: true,
	spacing: SeparatorSpacingSize.Small,
});

/** Text with a button beside it (the section's accessory). */
export const section = (content: string, accessory: APIButtonComponentWithCustomId): APISectionComponent => ({
	type: ComponentType.Section,
	components: [textDisplay(content)],
	accessory,
});

/** Pictures shown inside the card: each an uploaded file by name, with its alt text. */
export function gallery(items: ReadonlyArray<{ filename: string; alt?: string }>): APIMediaGalleryComponent {
	return {
		type: ComponentType.MediaGallery,
		items: items.slice(0, DISCORD_V2_LIMITS.galleryItems).map((item) => ({
			media: { url: `attachment://${item.filename}` },
			...(item.alt !== undefined && item.alt !== ""
				? { description: item.alt.slice(0, DISCORD_V2_LIMITS.galleryDescriptionChars) }
				: {}),
		})),
	};
}

/** The card's frame: a container with an accent colour. */
export const container = (accent: Accent, components: APIComponentInContainer[]): APIContainerComponent => ({
	type: ComponentType.Container,
	accent_color: accent,
	components,
});

/** Every component of a message, nested ones included (what Discord's 40 counts). */
export function countComponents(components: readonly unknown[]): number {
	let n = 0;
	const walk = (c: unknown): void => {
		if (typeof c !== "object" || c === null) return;
		n++;
		const node = c as { components?: unknown; accessory?: unknown; component?: unknown };
		if (Array.isArray(node.components)) for (const k of node.components) walk(k);
		if (node.accessory !== undefined) walk(node.accessory);
		if (node.component !== undefined) walk(node.component);
	};
	for (const c of components) walk(c);
	return n;
}

/**
 * The text a Components V2 message shows: its text displays in order, blank-line separated (a legacy message's
 * `content` first, when it has one). For logs, tests and anything that reads a posted card back.
 */
export function discordMessageText(message: { content?: unknown; components?: unknown }): string {
	const parts: string[] = [];
	if (typeof message.content === "string" && message.content !== "") parts.push(message.content);
	const walk = (c: unknown, depth: number): void => {
		if (depth > 6 || typeof c !== "object" || c === null) return;
		const node = c as { type?: unknown; content?: unknown; components?: unknown };
		if (node.type === ComponentType.TextDisplay && typeof node.content === "string") parts.push(node.content);
		if (Array.isArray(node.components)) for (const k of node.components) walk(k, depth + 1);
	};
	if (Array.isArray(message.components)) for (const c of message.components) walk(c, 0);
	return parts.join("\n\n");
}

/** The message without its pictures and files (media galleries and file components go; a container keeps the rest). */
export function withoutAttachments(message: DiscordMessage): DiscordMessage {
	const keep = (c: { type: ComponentType }) => c.type !== ComponentType.MediaGallery && c.type !== ComponentType.File;
	const components = message.components
		.filter(keep)
		.map((c) => (c.type === ComponentType.Container ? { ...c, components: c.components.filter(keep) } : c));
	const { attachments: _a, files: _f, ...rest } = message;
	return { ...rest, components };
}
