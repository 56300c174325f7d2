// How a form sets out its labels and buttons, measured in the page, so a page's form can be held
// to the layout of the settings forms (label above its field, buttons as wide as their text).
import { expect } from 'vitest';
import type { Locator, Page } from 'playwright-core';

export interface FormLayout {
  /** Each label: the space from its bottom to its field's top, and how far right of it the field starts. */
  labels: { text: string; gap: number; indent: number }[];
  /** Each button: its width, and the width of its text plus its padding and borders. */
  buttons: { text: string; width: number; fit: number }[];
}

async function box(locator: Locator): Promise<{ x: number; y: number; width: number; height: number }> {
  const found = await locator.boundingBox();
  if (!found) throw new Error('an element of the form is not shown');
  return found;
}

export async function formLayout(form: Locator): Promise<FormLayout> {
  const labels: FormLayout['labels'] = [];
  for (const label of await form.locator('label').all()) {
    const text = (await label.textContent()) ?? '';
    // The field the label names, wherever it is: inside the label or pointed to by `for`.
    const field = await label.evaluateHandle((element) => (element as HTMLLabelElement).control);
    const fieldBox = await field.asElement()?.boundingBox();
    if (!fieldBox) throw new Error(`the label ${text} names no shown field`);
    const labelBox = await box(label);
    labels.push({ text, gap: fieldBox.y - (labelBox.y + labelBox.height), indent: fieldBox.x - labelBox.x });
  }
  const buttons: FormLayout['buttons'] = [];
  for (const button of await form.locator('button').all()) {
    const { width } = await box(button);
    const fit = await button.evaluate((element) => {
      const range = document.createRange();
      range.selectNodeContents(element);
      const style = getComputedStyle(element);
      const sides = ['paddingLeft', 'paddingRight', 'borderLeftWidth', 'borderRightWidth'] as const;
      return range.getBoundingClientRect().width + sides.reduce((sum, side) => sum + parseFloat(style[side]), 0);
    });
    buttons.push({ text: (await button.textContent()) ?? '', width, fit });
  }
  return { labels, buttons };
}

/** The layout of the settings form that creates a project, the product's form style, at the page's width. */
export async function settingsFormLayout(page: Page, baseUrl: string): Promise<FormLayout> {
  await page.goto(`${baseUrl}/ui/settings/projects`);
  const form = page.getByRole('form', { name: 'Create a project' });
  await form.waitFor();
  return formLayout(form);
}

/** Every label sits above its field as a settings form's do, and no button is wider than its text needs. */
export function expectSettingsLayout(found: FormLayout, settings: FormLayout, what: string): void {
  const [reference] = settings.labels;
  if (!reference || settings.buttons.length === 0) throw new Error('the settings form has no label or button to compare with');
  // The settings form itself is regular: one spacing for all its labels, a button that fits its text.
  for (const label of settings.labels) expect(label, 'settings form').toMatchObject({ gap: expect.closeTo(reference.gap, 0), indent: expect.closeTo(reference.indent, 0) });
  expect(found.labels.length, `labels of ${what}`).toBeGreaterThan(0);
  for (const label of found.labels) {
    expect({ label: label.text, gap: label.gap, indent: label.indent }, what).toEqual({
      label: label.text,
      gap: expect.closeTo(reference.gap, 0),
      indent: expect.closeTo(reference.indent, 0),
    });
  }
  const slack = settings.buttons[0]!.width - settings.buttons[0]!.fit;
  expect(found.buttons.length, `buttons of ${what}`).toBeGreaterThan(0);
  for (const button of found.buttons) {
    expect({ button: button.text, slack: button.width - button.fit }, what).toEqual({ button: button.text, slack: expect.closeTo(slack, 0) });
  }
}
