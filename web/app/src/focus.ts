// The focus never stays lost on the page's body. When the control that has it goes away (a
// task marked done leaves its list, the last unread notification is marked read) the focus
// moves to the nearest place still on the screen that says what happened: a status or alert
// message in the same card or screen, else the screen itself. When the control is only
// disabled for a moment (a Save button while its write is on its way) the focus comes back
// to it once it is enabled again. A keyboard or screen-reader user would otherwise start
// again from the top of the page.
let trail: Element[] = [];
let pending = 0;
let tries = 0;
// taken: the control that has the focus was disabled or removed since it got it. Only then is
// the focus brought back: a person who tabbed out of the page to the browser keeps it there.
let taken = false;

function ancestors(e: Element): Element[] {
  const out: Element[] = [];
  for (let x: Element | null = e; x && x !== document.body; x = x.parentElement) out.push(x);
  return out;
}

/** usable: the element is on the page, shown and enabled, so it can take the focus back. */
function usable(e: Element): e is HTMLElement {
  return e.isConnected && e instanceof HTMLElement && !(e as HTMLButtonElement).disabled && e.checkVisibility();
}

// check runs a moment after the screen changed (the browser takes the focus from a control
// disabled or hidden at its next drawing, and the message is often written just after the
// control went).
function check(): void {
  pending = 0;
  const a = document.activeElement;
  const gone = trail[0];
  if ((a && a !== document.body) || !gone || !taken) return;
  if (usable(gone)) { gone.focus(); return; }
  if (gone.isConnected && ++tries < 40) { pending = window.setTimeout(check, 250); return; }
  for (const home of trail) {
    if (!home.isConnected || home === gone) continue;
    // Another screen (its section replaced) starts at its content; the same screen at its message.
    const to = home.id === 'main' ? home as HTMLElement : home.querySelector<HTMLElement>('[role=status]:not(:empty), [role=alert]');
    if (!to) continue;
    if (!to.hasAttribute('tabindex')) to.tabIndex = -1;
    to.focus();
    return;
  }
}

/** keepFocus watches root's changes from now on. */
export function keepFocus(root: Element): void {
  document.addEventListener('focusin', (e) => { if (e.target instanceof Element) { trail = ancestors(e.target); taken = false; } });
  // A click puts the focus where the pointer is (the body, on a blank spot): nothing to keep.
  document.addEventListener('pointerdown', () => { trail = []; taken = false; }, true);
  // Kept cheap: the register's rows change at every scroll.
  new MutationObserver(() => {
    const gone = trail[0];
    if (gone && (!gone.isConnected || (gone as HTMLButtonElement).disabled)) taken = true;
    if (taken && !pending) { tries = 0; pending = window.setTimeout(check, 250); }
  }).observe(root, { childList: true, subtree: true, attributes: true, attributeFilter: ['disabled', 'open', 'hidden'] });
}
