/**
 * A question kept open over a turn (the learner asked something first) reached the model as
 * pending: its answer then comes to the model as a later message our code writes, which names
 * the question, the answer and the verdict (the tool result the call would have had). Pure:
 * the words the model reads, and their reading back (the demo model reads them too).
 */

/** What the model is told about a question still open when a turn runs (the call's placeholder result). */
export const HELD_OUTPUT = {
	status: "pending",
	note:
		"The learner has not answered this question yet and it stays open: they wrote something first (their message " +
		"follows). Reply to that, without giving the answer away, and end your turn without asking a new question: " +
		"the question is offered to them again after your reply, and their answer comes in a later message.",
} as const;

/** What the quiz and ask tools' descriptions say of that placeholder. */
export const PENDING_DESCRIPTION =
	'A result `{ status: "pending" }` means the learner wrote something before answering (a question, a request for another explanation): ' +
	"reply to it without giving the answer away and ask nothing new; the question is offered again, and its answer comes in a later message. ";

/** True when a tool output is the pending placeholder. */
export const isHeldOutput = (output: unknown): boolean =>
	typeof output === "object" && output !== null && (output as { status?: unknown }).status === "pending";

const PREFIX = "[the answer to the question that stayed open: ";

/** The message that brings a kept-open question's result to the model (the result as JSON on its last line). */
export function lateAnswerText(
	toolCallId: string,
	question: string,
	result: Readonly<Record<string, unknown>>,
): string {
	const { by: _by, deferred: _deferred, ...shown } = result;
	return `${PREFIX}"${question}"]\n${JSON.stringify({ toolCallId, ...shown })}`;
}

/** The call id and the result a late-answer message carries; undefined when the text is not one. */
export function parseLateAnswer(text: string): { toolCallId: string; result: Record<string, unknown> } | undefined {
	if (!text.startsWith(PREFIX)) return undefined;
	try {
		const value: unknown = JSON.parse(text.slice(text.lastIndexOf("\n") + 1));
		if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
		const { toolCallId, ...result } = value as Record<string, unknown>;
		return typeof toolCallId === "string" ? { toolCallId, result } : undefined;
	} catch {
		return undefined;
	}
}
