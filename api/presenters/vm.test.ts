import { describe, expect, it } from 'vitest';
import type { Subscription } from '../../core/db/subscriptions.ts';
import type { Vm } from '../../core/db/vms.ts';
import { liveUsageSeconds } from '../../core/domain/usage.ts';
import { loadConfig } from '../../core/config/config.ts';
import { dashboardBody } from './vm.ts';

const NOW = new Date('2026-03-10T10:00:00Z');
const at = (secondsAgo: number) => new Date(NOW.getTime() - secondsAgo * 1000);
const config = loadConfig({});

const subscription = {
  id: '00000000-0000-4000-8000-000000000001',
  user_id: '00000000-0000-4000-8000-000000000002',
  plan_id: 'legend',
  plan_name: 'LEGEND',
  is_trial: false,
  hours: 30,
  storage_gb: 115,
  instance_type: 'g4dn.xlarge',
  price_paise: 145_000,
  status: 'active',
  trial_phone: null,
  purchased_at: at(86_400),
  expires_at: new Date(NOW.getTime() + 29 * 86_400_000),
  cancelled_at: null,
  created_at: at(86_400),
  updated_at: at(86_400),
} satisfies Subscription;

function vm(overrides: Partial<Vm>): Vm {
  return {
    id: '00000000-0000-4000-8000-000000000003',
    user_id: subscription.user_id,
    subscription_id: subscription.id,
    subscription_attached_at: at(3600),
    plan_id: 'legend',
    instance_type: 'g4dn.xlarge',
    storage_gb: 115,
    resize_to_type: null,
    resize_to_gb: null,
    resized_from_type: null,
    keep_disk: false,
    restore_snapshot_id: null,
    state: 'running',
    state_changed_at: at(600),
    state_reason: null,
    problem: null,
    source: 'launch',
    instance_id: 'i-0123456789abcdef0',
    image_id: 'ami-0123456789abcdef0',
    subnet_id: 'subnet-a',
    availability_zone: 'ap-south-1a',
    public_ip: '203.0.113.9',
    password_encrypted: 'v1.sealed',
    password_ready_at: at(700),
    launch_attempts: 1,
    start_attempts: 0,
    usage_seconds: 1000,
    usage_counted_at: at(600),
    requested_at: at(3600),
    provision_started_at: at(3600),
    launched_at: at(3600),
    ready_at: at(3000),
    start_requested_at: null,
    started_at: at(600),
    stop_requested_at: null,
    stopped_at: null,
    terminate_requested_at: null,
    terminated_at: null,
    error_at: null,
    delayed_at: null,
    synced_at: null,
    last_error: null,
    last_error_at: null,
    remote_desktop_waiting_since: null,
    created_at: at(3600),
    updated_at: at(60),
    ...overrides,
  };
}

const body = (row: Vm | null, sub: Subscription | null = subscription) =>
  dashboardBody({
    user: { email: 'a@example.com', name: 'Asha' },
    subscription: sub,
    vm: row,
    vmConfig: config.vm,
    now: NOW,
  });

describe('dashboardBody', () => {
  it('says a renewal waits for the copy of the old disk only while the copy is being saved', () => {
    const waiting = vm({
      state: 'requested',
      instance_id: null,
      public_ip: null,
      password_encrypted: null,
      restore_snapshot_id: '00000000-0000-4000-8000-000000000009',
    });
    const withDisk = (state: 'creating' | 'completed') =>
      dashboardBody({
        user: { email: 'a@example.com', name: 'Asha' },
        subscription,
        vm: waiting,
        keptDisk: {
          id: '00000000-0000-4000-8000-000000000009',
          state,
          created_at: at(300),
          completed_at: state === 'completed' ? at(10) : null,
          keep_until: new Date(NOW.getTime() + 30 * 86_400_000),
        },
        vmConfig: config.vm,
        now: NOW,
      });
    expect(withDisk('creating')).toMatchObject({ waitingForDiskCopy: true, vmLastState: 'provisioning' });
    expect(withDisk('completed').waitingForDiskCopy).toBe(false);
    expect(body(waiting).waitingForDiskCopy).toBe(false);
    expect(body(vm({})).waitingForDiskCopy).toBe(false);
  });

  it('sends usage up to the last state change, so the ticking timer never counts twice after a sync accrued', () => {
    // Running 600 s with 1000 s before; the sync counted the first 540 s of this run already.
    const synced = vm({ usage_seconds: 1540, usage_counted_at: at(60) });
    const record = body(synced);
    expect(record.vmUsageSeconds).toBe(1000);
    const shown = liveUsageSeconds(
      {
        usageSeconds: record.vmUsageSeconds,
        isRunning: record.isRunning,
        lastStateChange: record.vmLastStateChange,
      },
      NOW,
    );
    expect(shown).toBe(1600);
  });

  it('shows the IP and the RDP link only while running, and versions the link by the start', () => {
    const running = body(vm({}));
    expect(running).toMatchObject({
      isRunning: true,
      vmPublicIp: '203.0.113.9',
      vmLastState: 'running',
      canStop: true,
    });
    expect(running.rdpUrl).toBe(`/api/vm/rdp?v=${at(600).getTime()}`);
    const stopped = body(vm({ state: 'stopped', public_ip: null }));
    expect(stopped).toMatchObject({ isRunning: false, vmPublicIp: null, rdpUrl: null, canStart: true });
    expect(stopped.pwdUrl).toBe('/api/vm/password');
  });

  it('says plainly when provisioning is late or failed, and shows a paid plan with no machine yet as being set up', () => {
    expect(body(vm({ state: 'provisioning', public_ip: null, delayed_at: at(10) })).notice).toMatch(
      /taking longer than usual/,
    );
    expect(body(vm({ state: 'error', problem: null })).notice).toMatch(/could not set up your PC/);
    expect(body(null)).toMatchObject({ vmLastState: 'provisioning', vmPublicIp: null, pwdUrl: null });
    expect(body(vm({ state: 'provisioning', source: 'pool', public_ip: null })).vmLastState).toBe('starting');
    // One display state, sent once, under the spec's name.
    expect(body(vm({ state: 'provisioning', source: 'pool', public_ip: null }))).not.toHaveProperty(
      'displayState',
    );
  });

  it('an empty plan for someone who never bought one (spec §3)', () => {
    expect(body(null, null)).toMatchObject({
      selectedPlan: '',
      selectedDuration: null,
      vmLastState: 'none',
      notice: null,
      planActive: false,
    });
  });

  it('reports hours used up and a lapsed plan with the date its machine is kept until', () => {
    expect(body(vm({ state: 'stopped', public_ip: null, usage_seconds: 30 * 3600 }))).toMatchObject({
      outOfHours: true,
      canStart: false,
      remainingSeconds: 0,
    });
    const lapsed = body(vm({ state: 'stopped', public_ip: null }), {
      ...subscription,
      status: 'expired',
      expires_at: at(3600),
    });
    expect(lapsed).toMatchObject({ planActive: false, canStart: false });
    expect(Date.parse(lapsed.keptUntil!)).toBe(at(3600).getTime() + 7 * 86_400_000);
  });
});
