/**
 * Text that changes in place without moving anything around it: every item is laid out in
 * the same grid cell, so the box is always as tall as the tallest item (no layout shift),
 * and only the current one is visible and exposed to assistive technology. It is not a live
 * region on purpose: announcing a slogan every few seconds would drown out everything else.
 */
export function Rotator({
  items,
  index,
  className,
}: {
  items: readonly string[];
  index: number;
  className?: string;
}) {
  return (
    <span className={className ? `rotator ${className}` : 'rotator'} data-index={index}>
      {items.map((item, i) => (
        <span
          key={item}
          className={i === index ? 'rotator-item is-active' : 'rotator-item'}
          aria-hidden={i !== index}
        >
          {item}
        </span>
      ))}
    </span>
  );
}
