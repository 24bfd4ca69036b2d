import { useEffect, useId, useRef, type ReactNode } from 'react';
import './endings.css';

/**
 * An in-app modal over the native `<dialog>` element (focus moves in, Escape closes, the page
 * behind is inert): the product never uses `window.alert` or `window.confirm`, which block the
 * tab, cannot be styled, and say nothing about what an action destroys.
 */
export function Dialog({
  open,
  title,
  onClose,
  children,
  className,
}: {
  open: boolean;
  title: string;
  onClose: () => void;
  children: ReactNode;
  className?: string;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const titleId = useId();

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      dialog.showModal();
      // showModal focuses the first field, which on a small screen can be far down a long dialog
      // and scrolls it there: start at the title instead, read first, with the dialog at its top.
      heading.current?.focus({ preventScroll: true });
      dialog.scrollTop = 0;
    }
    if (!open && dialog.open) dialog.close();
  }, [open]);

  return (
    <dialog
      ref={ref}
      className={`modal ${className ?? ''}`}
      aria-labelledby={titleId}
      onClose={onClose}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
    >
      {open && (
        <div className="modal-body">
          <h2 id={titleId} className="modal-title" ref={heading} tabIndex={-1}>
            {title}
          </h2>
          {children}
        </div>
      )}
    </dialog>
  );
}
