import { Ec2Error, invalidValue } from './errors.ts';

/**
 * Reading EC2 Query parameters: flat `Name.N.Sub` keys from a form body. Lists are numbered
 * from 1 and need not be contiguous, so members are ordered by their number.
 */
export type Params = Map<string, string>;

export function parseParams(encoded: string): Params {
  const params: Params = new Map();
  for (const [key, value] of new URLSearchParams(encoded)) params.set(key, value);
  return params;
}

export function str(params: Params, key: string): string | undefined {
  return params.get(key);
}

export function required(params: Params, key: string): string {
  const value = params.get(key);
  if (value === undefined || value === '') {
    throw new Ec2Error('MissingParameter', `The request must contain the parameter ${key}`);
  }
  return value;
}

export function int(params: Params, key: string): number | undefined {
  const value = params.get(key);
  if (value === undefined) return undefined;
  if (!/^-?\d{1,15}$/.test(value)) throw invalidValue(key, value);
  return Number(value);
}

export function bool(params: Params, key: string): boolean {
  return params.get(key)?.toLowerCase() === 'true';
}

/** Members of `Prefix.N.*` as their own parameter maps (keys without the prefix), by N. */
export function structList(params: Params, prefix: string): Params[] {
  const groups = new Map<number, Params>();
  const head = `${prefix}.`;
  for (const [key, value] of params) {
    if (!key.startsWith(head)) continue;
    const rest = key.slice(head.length);
    const dot = rest.indexOf('.');
    const indexText = dot === -1 ? rest : rest.slice(0, dot);
    if (!/^\d+$/.test(indexText)) continue;
    const index = Number(indexText);
    let group = groups.get(index);
    if (!group) {
      group = new Map();
      groups.set(index, group);
    }
    group.set(dot === -1 ? '' : rest.slice(dot + 1), value);
  }
  return [...groups.entries()].sort((a, b) => a[0] - b[0]).map(([, group]) => group);
}

/** Members of a scalar list `Prefix.N`, by N. */
export function scalarList(params: Params, prefix: string): string[] {
  return structList(params, prefix)
    .map((group) => group.get(''))
    .filter((value): value is string => value !== undefined);
}

export type Tag = { key: string; value: string };

/** `Tag.N.Key/Value` members, checked the way EC2 checks them. */
export function tags(params: Params, prefix = 'Tag'): Tag[] {
  const list = structList(params, prefix).map((group) => {
    const key = group.get('Key');
    if (key === undefined || key === '')
      throw new Ec2Error('InvalidParameterValue', 'Tag key must not be empty.');
    const value = group.get('Value') ?? '';
    if (key.length > 128) throw invalidValue('Tag.Key', key, 'Tag keys are at most 128 characters.');
    if (value.length > 256) throw invalidValue('Tag.Value', value, 'Tag values are at most 256 characters.');
    if (key.toLowerCase().startsWith('aws:')) {
      throw new Ec2Error(
        'InvalidParameterValue',
        "Tag keys starting with 'aws:' are reserved for internal use",
      );
    }
    return { key, value };
  });
  if (list.length > 50)
    throw new Ec2Error('TagLimitExceeded', 'The maximum number of tags per resource is 50.');
  return list;
}

export type Filter = { name: string; values: string[] };

export function filters(params: Params): Filter[] {
  return structList(params, 'Filter').map((group) => {
    const name = group.get('Name');
    if (!name) throw new Ec2Error('InvalidParameterValue', 'The filter name must not be empty.');
    return { name, values: scalarList(group, 'Value') };
  });
}
