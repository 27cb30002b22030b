/**
 * The fake Discord's modal rules (testkit/fixtures/discord/limits-modal.ts cites discord-api-docs for each):
 * a label wraps exactly one component; a file upload's custom_id, min/max values and file types; radio and
 * checkbox groups' options and bounds; a checkbox cannot be required; and what a client lets a user submit
 * (files within the upload's bounds and the user's upload limit, checkbox values among the options).
 */

import { describe, expect, it } from "vitest";
import { checkboxRefusal, modalProblems, uploadRefusal } from "../../../testkit/fixtures/discord/limits-modal.ts";

const label = (component: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
	type: 18,
	label: "Your working",
	component,
	...extra,
});
const modal = (...components: unknown[]) => ({ custom_id: "m", title: "Your answer", components });
const upload = (extra: Record<string, unknown> = {}) => ({ type: 19, custom_id: "up", ...extra });
const options = (n: number) => Array.from({ length: n }, (_, i) => ({ value: `v${i}`, label: `Option ${i}` }));

describe("the fake Discord's modal rules", () => {
	it("accepts the documented shapes: a text input, an upload, radio and checkbox groups and a checkbox in labels", () => {
		expect(
			modalProblems(
				modal(
					{ type: 10, content: "What is 5 + 5?" },
					label({ type: 4, custom_id: "t", style: 2, required: true, min_length: 1, max_length: 1500 }),
					label(upload({ min_values: 0, max_values: 4, required: false, file_types: ["image", ".pdf"] })),
					label({ type: 21, custom_id: "r", options: options(3) }),
					label({ type: 22, custom_id: "c", options: options(5), min_values: 1, max_values: 3 }),
				),
			),
		).toEqual([]);
		expect(modalProblems(modal(label({ type: 23, custom_id: "x", default: true })))).toEqual([]);
	});

	it("refuses a label around a list, a missing or foreign child, and out-of-range uploads", () => {
		const problems = (component: Record<string, unknown>, extra?: Record<string, unknown>) =>
			modalProblems(modal(label(component, extra)));
		expect(problems(upload(), { components: [upload()] })).toEqual([
			"modal.components[0] a label holds one component, not a list",
		]);
		expect(modalProblems(modal({ type: 18, label: "x" }))).toEqual(["modal.components[0] has no component"]);
		expect(problems({ type: 2, custom_id: "b" })).toEqual([
			"modal.components[0] component type 2 cannot sit in a label",
		]);
		expect(problems(upload({ custom_id: "u".repeat(101) }))).toEqual(["modal.components[0].custom_id longer than 100"]);
		expect(problems(upload({ min_values: 0 }))).toEqual(["modal.components[0].min_values 0 needs required false"]);
		expect(problems(upload({ max_values: 11 }))).toEqual(["modal.components[0].max_values must be 1..10"]);
		expect(problems(upload({ min_values: 3, max_values: 2 }))).toEqual([
			"modal.components[0].min_values above max_values",
		]);
		expect(problems(upload({ file_types: ["pictures"] }))).toEqual([
			'modal.components[0].file_types has "pictures": a group or a dot-prefixed extension',
		]);
	});

	it("refuses groups outside their option counts, two radio defaults, and a required checkbox", () => {
		const problems = (component: Record<string, unknown>) => modalProblems(modal(label(component)));
		expect(problems({ type: 21, custom_id: "r", options: options(1) })).toEqual([
			"modal.components[0] needs 2..10 options",
		]);
		expect(
			problems({
				type: 21,
				custom_id: "r",
				options: options(2).map((o) => ({ ...o, default: true })),
			}),
		).toEqual(["modal.components[0] has more than one default option"]);
		expect(problems({ type: 22, custom_id: "c", options: options(11) })).toEqual([
			"modal.components[0] needs 1..10 options",
		]);
		expect(problems({ type: 22, custom_id: "c", options: options(3), min_values: 0 })).toEqual([
			"modal.components[0].min_values 0 needs required false",
		]);
		expect(problems({ type: 23, custom_id: "x", required: true })).toEqual([
			"modal.components[0] a checkbox cannot be required",
		]);
	});

	it("lets a client submit only what the upload and the groups allow", () => {
		const optional = upload({ min_values: 0, max_values: 2, required: false });
		expect(uploadRefusal(optional, [], 100)).toBeUndefined();
		expect(uploadRefusal(optional, [10, 20], 100)).toBeUndefined();
		expect(uploadRefusal(optional, [1, 1, 1], 100)).toBe("the upload takes at most 2 file(s)");
		expect(uploadRefusal(optional, [101], 100)).toBe("a file is over the upload limit (100 bytes)");
		expect(uploadRefusal(upload(), [], 100)).toBe("the upload needs at least 1 file(s)");
		const group = { type: 22, custom_id: "c", options: options(3), max_values: 2 };
		expect(checkboxRefusal(group, ["v0", "v2"])).toBeUndefined();
		expect(checkboxRefusal(group, [])).toBe("the group takes 1..2 values");
		expect(checkboxRefusal(group, ["v0", "v1", "v2"])).toBe("the group takes 1..2 values");
		expect(checkboxRefusal(group, ["v9"])).toBe("a value is not one of the group's options");
	});
});
