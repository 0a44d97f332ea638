import type { TemplateComponent } from "../../../contract/template-rules/shapes.js";
import type { JsonText } from "../json-text.js";
/** The message templates tables (migrations 0005, 0022). */
export interface TemplateTables {
  templates: TemplateTable;
  template_approvals: TemplateApprovalTable;
}

/** A period in which a template was approved (migration 0022), for the usage report's months. */
export interface TemplateApprovalTable {
  template_id: string;
  workspace_id: string;
  approved_from: string;
  /** When it stopped being approved (paused, disabled); null while it is. */
  approved_until: string | null;
}

export interface TemplateTable {
  id: string;
  workspace_id: string;
  /** Unique with language inside a workspace; never changes once stored. */
  name: string;
  /** marketing, utility or authentication. */
  category: string;
  language: string;
  /** JSON array of the normalised components (see contract/template-rules.ts). */
  components: JsonText<TemplateComponent[]>;
  /** draft, pending, approved, rejected, paused or disabled. */
  status: string;
  /** One of the operator's rejection reasons, while rejected. */
  rejection_reason: string | null;
  rejection_detail: string | null;
  created_at: string;
  updated_at: string;
  submitted_at: string | null;
  reviewed_at: string | null;
  /** The Graph id of the template once submitted to the WhatsApp Cloud API (migration 0008). */
  provider_template_id: string | null;
  /**
   * When the operator's last applied status report was made (migration 0024); an older report
   * changes nothing. Null until one is applied.
   */
  status_reported_at: string | null;
}
