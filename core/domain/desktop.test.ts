import { describe, expect, it } from 'vitest';
import { DCV_WEB_URL_DEFAULT, desktopUrl } from './desktop.ts';
import { desktopReachable, downloadsReady, MACHINE_STATES } from './machineStates.ts';

describe('desktopUrl', () => {
  it("is DCV's web client on the machine with the token in the query and the console session in the fragment", () => {
    expect(desktopUrl(DCV_WEB_URL_DEFAULT, '13.232.10.4', 'tok-EN_123')).toBe(
      'https://13.232.10.4:8443/?authToken=tok-EN_123#console',
    );
  });

  it('keeps a template path and encodes the token', () => {
    expect(desktopUrl('http://{ip}:8443/dcv/', '127.16.0.9', 'a b&c')).toBe(
      'http://127.16.0.9:8443/dcv/?authToken=a+b%26c#console',
    );
  });
});

describe('desktopReachable', () => {
  it('only a running machine with an address, the same rule as the RDP file', () => {
    for (const state of MACHINE_STATES) {
      for (const publicIp of ['203.0.113.5', null]) {
        const reachable = desktopReachable({ state, publicIp });
        expect(reachable, `${state} ${publicIp}`).toBe(state === 'running' && publicIp !== null);
        expect(downloadsReady({ state, publicIp, passwordStored: true }).rdp).toBe(reachable);
      }
    }
  });
});
