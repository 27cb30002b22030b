/**
 * Component ids of buttons, selects, modals, text inputs and file uploads:
 * `lh:<verb>:<toolCallId>[:<choice>]` ("help" carries the index of a help kind, core/struggle.ts HELP_KINDS). One format for Discord custom_id
 * (max 100) and Slack action_id/callback_id (max 255): we keep to 100.
 * Verbs "pick" and "select" always carry a choice and the others never do,
 * so a tool call id that itself contains ":" still decodes unambiguously.
 * Decoded ids are a claim, not a fact: adapters check them against the
 * session's pending calls.
 */

/** What a component does when used. */
export type ComponentVerb = "pick" | "select" | "help" | "open" | "modal" | "text" | "file";

/** A decoded component id. `choice` is set exactly for "pick" (option index), "select" (first index of its menu) and "help" (help kind index). */
export interface ComponentId {
	verb: ComponentVerb;
	toolCallId: string;
	choice?: number;
}

/** Longest id we emit: Discord's custom_id limit (Slack allows 255). */
export const COMPONENT_ID_MAX_CHARS = 100;

const PREFIX = "lh";
const WITH_CHOICE: ReadonlySet<string> = new Set(["pick", "select", "help"]);
const WITHOUT_CHOICE: ReadonlySet<string> = new Set(["open", "modal", "text", "file"]);
const MAX_CHOICE = 9999;
// Printable, no whitespace: ids travel through JSON and platform UIs untouched.
const TOOL_CALL_ID = /^[\x21-\x7e]+$/;

/** Thrown by encodeComponentId when the parts cannot make a valid id. */
export class ComponentIdError extends Error {
	constructor(message: string) {
		super(message);
		this.name = "ComponentIdError";
	}
}

/** Encodes a component id; throws ComponentIdError when it cannot fit or the parts are invalid. */
export function encodeComponentId(id: ComponentId): string {
	const { verb, toolCallId, choice } = id;
	if (!TOOL_CALL_ID.test(toolCallId))
		throw new ComponentIdError(
			`tool call id ${JSON.stringify(toolCallId)} must be non-empty printable ASCII without spaces`,
		);
	let encoded: string;
	if (WITH_CHOICE.has(verb)) {
		if (choice === undefined || !Number.isInteger(choice) || choice < 0 || choice > MAX_CHOICE)
			throw new ComponentIdError(`verb "${verb}" needs an integer choice 0..${MAX_CHOICE}, got ${String(choice)}`);
		encoded = `${PREFIX}:${verb}:${toolCallId}:${choice}`;
	} else if (WITHOUT_CHOICE.has(verb)) {
		if (choice !== undefined) throw new ComponentIdError(`verb "${verb}" takes no choice`);
		encoded = `${PREFIX}:${verb}:${toolCallId}`;
	} else throw new ComponentIdError(`unknown verb ${JSON.stringify(verb)}`);
	if (encoded.length > COMPONENT_ID_MAX_CHARS)
		throw new ComponentIdError(
			`component id for tool call ${JSON.stringify(toolCallId.slice(0, 40))}… is ${encoded.length} characters; ` +
				`Discord allows ${COMPONENT_ID_MAX_CHARS} (tool call ids up to ~85 characters fit)`,
		);
	return encoded;
}

/** Whether every component id of this tool call fits (the longest is a 4-digit "select"). */
export function componentIdsFit(toolCallId: string): boolean {
	try {
		encodeComponentId({ verb: "select", toolCallId, choice: MAX_CHOICE });
		return true;
	} catch {
		return false;
	}
}

/** Decodes a component id; undefined for anything that is not exactly one of ours. Never throws. */
export function decodeComponentId(value: unknown): ComponentId | undefined {
	if (typeof value !== "string" || value.length > COMPONENT_ID_MAX_CHARS) return undefined;
	const first = value.indexOf(":");
	const second = first < 0 ? -1 : value.indexOf(":", first + 1);
	if (second < 0 || value.slice(0, first) !== PREFIX) return undefined;
	const verb = value.slice(first + 1, second);
	const rest = value.slice(second + 1);
	if (WITHOUT_CHOICE.has(verb)) {
		if (!TOOL_CALL_ID.test(rest)) return undefined;
		return { verb: verb as ComponentVerb, toolCallId: rest };
	}
	if (!WITH_CHOICE.has(verb)) return undefined;
	const last = rest.lastIndexOf(":");
	if (last <= 0) return undefined;
	const toolCallId = rest.slice(0, last);
	const digits = rest.slice(last + 1);
	// Canonical decimal only ("07" or "+7" are not ours), so decode(encode(x)) is the only way in.
	if (!/^(0|[1-9]\d{0,3})$/.test(digits) || !TOOL_CALL_ID.test(toolCallId)) return undefined;
	return { verb: verb as ComponentVerb, toolCallId, choice: Number(digits) };
}

/** Keys under which platforms carry component ids: Discord's custom_id, Slack's action_id. */
const ID_KEYS: ReadonlySet<string> = new Set(["custom_id", "action_id"]);
const MAX_DEPTH = 12;
const MAX_NODES = 5_000;

/**
 * Whether a platform message (its raw JSON: Discord components, Slack blocks) carries a control of
 * `toolCallId`. Walks at most MAX_DEPTH levels and MAX_NODES values; never throws.
 */
export function carriesControlsOf(message: unknown, toolCallId: string): boolean {
	let nodes = 0;
	const walk = (value: unknown, depth: number): boolean => {
		if (++nodes > MAX_NODES || depth > MAX_DEPTH || typeof value !== "object" || value === null) return false;
		if (Array.isArray(value)) return value.some((item) => walk(item, depth + 1));
		for (const [key, item] of Object.entries(value)) {
			if (ID_KEYS.has(key) && decodeComponentId(item)?.toolCallId === toolCallId) return true;
			if (walk(item, depth + 1)) return true;
		}
		return false;
	};
	return walk(message, 0);
}
