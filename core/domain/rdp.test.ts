import { describe, expect, it } from 'vitest';
import { rdpFile } from './rdp.ts';

describe('rdpFile', () => {
  it('writes name:type:value lines with CRLF, the address first and no password', () => {
    const text = rdpFile('203.0.113.7');
    expect(text.endsWith('\r\n')).toBe(true);
    const lines = text.split('\r\n').slice(0, -1);
    expect(lines[0]).toBe('full address:s:203.0.113.7');
    expect(lines).toContain('username:s:Administrator');
    expect(lines).toContain('prompt for credentials:i:1');
    expect(lines).toContain('authentication level:i:2');
    expect(lines.every((line) => /^[a-z0-9 ]+:[si]:[^\r\n]+$/.test(line))).toBe(true);
    expect(text).not.toMatch(/password/i);
    expect(text.replaceAll('\r\n', '')).not.toContain('\n');
  });

  it('adds the port only when it is not 3389', () => {
    expect(rdpFile('198.51.100.20', 3389)).toContain('full address:s:198.51.100.20\r\n');
    expect(rdpFile('198.51.100.20', 53389)).toContain('full address:s:198.51.100.20:53389\r\n');
  });

  it('names the PC by its DNS name when it has one, so the file works after every start', () => {
    expect(rdpFile('pc-7k2m9q4x.play.legendcloud.in')).toContain(
      'full address:s:pc-7k2m9q4x.play.legendcloud.in\r\n',
    );
    expect(rdpFile('pc-7k2m9q4x.play.legendcloud.in', 53389)).toContain(
      'full address:s:pc-7k2m9q4x.play.legendcloud.in:53389\r\n',
    );
  });

  it('refuses anything but an IPv4 address or a host name, so nothing else can be written into the file', () => {
    expect(() => rdpFile('203.0.113.7\r\nalternate shell:s:cmd')).toThrow();
    expect(() => rdpFile('pc-a.example.in\r\nalternate shell:s:cmd')).toThrow();
    expect(() => rdpFile('256.1.1.1')).toThrow();
    expect(() => rdpFile('Example.com')).toThrow();
    expect(() => rdpFile('example')).toThrow();
    expect(() => rdpFile('-bad.example.in')).toThrow();
    expect(() => rdpFile('pc a.example.in')).toThrow();
    expect(() => rdpFile('pc-a.example.in:3389')).toThrow();
  });
});
