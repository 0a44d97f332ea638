/** The message templates table (migration 0005). */
export interface TemplateTables {
  templates: TemplateTable;
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
  components: string;
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
}
