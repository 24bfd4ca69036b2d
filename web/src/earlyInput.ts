/**
 * What a visitor does on a prerendered page before the app has taken it over (the first paint
 * comes before the app's code: web/src/main.tsx), kept rather than lost:
 *
 * - **Typing.** Text fields take input from the first paint. What was typed is in the field, not
 *   yet in the app's state (React hydrates a field keeping what it holds, and would put its own
 *   empty value back on its next render): on taking over, each field whose text differs from the
 *   page's is given to the app as the input it is, so its state holds it.
 * - **A form sent** (Enter in a field, its button pressed from the keyboard) is held, never the
 *   browser's own full-page post (which would put the fields in the address and reload): it is
 *   sent again once the app has the fields' values, and the app handles it as any other.
 * - **A button pressed from the keyboard** (Enter or Space: a click with no pointer on it) is
 *   pressed again once the app can answer it. Taps do not reach the controls until then
 *   (`#root.awaiting-app` in web/src/styles.css): they wait, as a tap on a page still loading does.
 *
 * Held from the entry (`holdEarlyInput`), released by web/src/hydration.ts's `TakenOver`.
 */

type Action =
  | { kind: 'submit'; form: HTMLFormElement; submitter: HTMLElement | null }
  | { kind: 'press'; button: HTMLElement };

let held: { root: HTMLElement; actions: Action[]; stop: () => void } | null = null;

/** Starts holding the page's forms and key presses (a prerendered page, before the app runs). */
export function holdEarlyInput(root: HTMLElement): void {
  // The build disabled the page's submit buttons until now (scripts/build.ts): from here on a
  // form sent is held, so they can be pressed.
  for (const button of root.querySelectorAll<HTMLButtonElement>('button[data-awaiting-entry]')) {
    button.disabled = false;
    button.removeAttribute('data-awaiting-entry');
  }
  const actions: Action[] = [];
  const onSubmit = (event: SubmitEvent) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || !root.contains(form)) return;
    // Held here alone: neither the browser nor a part of the app hydrated meanwhile acts on it
    // now, so it is sent once, when released.
    event.preventDefault();
    event.stopPropagation();
    if (!actions.some((action) => action.kind === 'submit' && action.form === form))
      actions.push({ kind: 'submit', form, submitter: event.submitter });
  };
  const onClick = (event: MouseEvent) => {
    const button =
      event.target instanceof Element ? event.target.closest('button, [role="button"], [role="tab"]') : null;
    if (!(button instanceof HTMLElement) || !root.contains(button)) return;
    // A form's button sends the form: its submit event is what is held.
    if (button instanceof HTMLButtonElement && button.type === 'submit' && button.form) return;
    event.preventDefault();
    event.stopPropagation();
    actions.push({ kind: 'press', button });
  };
  document.addEventListener('submit', onSubmit, true);
  document.addEventListener('click', onClick, true);
  held = {
    root,
    actions,
    stop: () => {
      document.removeEventListener('submit', onSubmit, true);
      document.removeEventListener('click', onClick, true);
    },
  };
}

/** The app has taken the page over: what was typed becomes its state, then what was pressed or sent happens. */
export function releaseEarlyInput(): void {
  if (!held) return;
  const { root, actions, stop } = held;
  held = null;
  stop();
  for (const field of root.querySelectorAll('input, textarea, select')) giveToApp(field as FormField);
  if (actions.length === 0) return;
  // A task later: the app has rendered the values just given, so a form is sent with them.
  setTimeout(() => {
    for (const action of actions) {
      if (action.kind === 'submit') {
        const { form, submitter } = action;
        if (!form.isConnected) continue;
        const by = submitter instanceof HTMLButtonElement && submitter.form === form && !submitter.disabled;
        form.requestSubmit(by ? submitter : undefined);
      } else if (action.button.isConnected && !(action.button as HTMLButtonElement).disabled) {
        action.button.click();
      }
    }
  }, 0);
}

type FormField = HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement;

/**
 * Tells the app about a field changed before it took over, as the browser tells it of a change:
 * an `input` event (a `change` for a list). The app (React) notices a change by the value it
 * last knew, which for such a field is already what was typed: it is given the page's value
 * first, then the typed one is put back without telling it, so the event reads as the change
 * it is.
 */
function giveToApp(field: FormField): void {
  if (field instanceof HTMLSelectElement) {
    if ([...field.options].some((option) => option.selected !== option.defaultSelected))
      field.dispatchEvent(new Event('change', { bubbles: true }));
    return;
  }
  if (field instanceof HTMLInputElement && (field.type === 'checkbox' || field.type === 'radio')) return;
  if (field.value === field.defaultValue) return;
  const typed = field.value;
  const proto =
    field instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
  field.value = field.defaultValue;
  Object.getOwnPropertyDescriptor(proto, 'value')?.set?.call(field, typed);
  field.dispatchEvent(new Event('input', { bubbles: true }));
}
