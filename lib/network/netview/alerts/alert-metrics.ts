/** `netview_alerts_firing{rule,severity,silenced}` on `/metrics`, read at scrape time. */
import { Gauge, type Registry } from "prom-client";
import type { AlertEngine } from "./alert-engine.ts";

export function registerAlertMetrics(registry: Registry, engine: AlertEngine): void {
  new Gauge({
    name: "netview_alerts_firing",
    help: "Firing alerts by rule and severity, silenced or not",
    labelNames: ["rule", "severity", "silenced"],
    registers: [registry],
    collect() {
      this.reset();
      for (const rule of engine.rules().values()) {
        for (const silenced of ["false", "true"])
          this.set({ rule: rule.name, severity: rule.severity, silenced }, 0);
      }
      for (const a of engine.alerts())
        this.inc({ rule: a.rule, severity: a.severity, silenced: String(a.silenced) });
    },
  });
}
