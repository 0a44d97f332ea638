import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type CloudWorld, cloudWorld, wabaId } from "./world.js";

const ada = "+4915112345671";

/** A marketing template with an image header, a URL button ending in {{1}} and a COPY_CODE button. */
const orderTemplate = (headerExample: string) => ({
  name: "order_ready",
  components: [
    {
      type: "HEADER",
      format: "IMAGE",
      example: { header_handle: [headerExample] },
    },
    { type: "BODY", text: "Hello {{1}}, your order is ready.", example: { body_text: [["Ada"]] } },
    {
      type: "BUTTONS",
      buttons: [
        { type: "QUICK_REPLY", text: "Thanks" },
        {
          type: "URL",
          text: "Track it",
          url: "https://shop.example.com/orders/{{1}}",
          example: ["A-1042"],
        },
        { type: "COPY_CODE", example: "SPRING10" },
      ],
    },
  ],
});

const approval = (graphId: string) => ({
  object: "whatsapp_business_account",
  entry: [
    {
      id: wabaId,
      time: 1732270001,
      changes: [
        {
          field: "message_template_status_update",
          value: { event: "APPROVED", message_template_id: Number(graphId), reason: "NONE" },
        },
      ],
    },
  ],
});

describe("campaigns of templates with variable buttons and media headers", () => {
  let w: CloudWorld;
  let channelId: string;
  beforeEach(async () => {
    w = await cloudWorld();
    channelId = (await w.connect()).id;
  });
  afterEach(() => w.close());

  const approve = async (headerExample: string) => {
    const { graphId } = await w.submitTemplate(orderTemplate(headerExample));
    await w.deliver(approval(graphId));
  };
  const body = (mapping: Record<string, string>) => ({
    name: "Orders",
    channel_id: channelId,
    template_name: "order_ready",
    template_language: "en_US",
    audience: { all: true },
    variable_mapping: mapping,
  });

  it("sends the image link, the URL button's value and the coupon code in Meta's component shape", async () => {
    await approve("https://cdn.example.com/order.png");
    await w.contact(ada, { first_name: "Ada", custom_fields: { order: "A-7", coupon: "ADA10" } });
    const draft = await w.post(
      "/campaigns",
      body({ "1": "first_name", "button.1": "custom.order", "button.2": "custom.coupon" }),
    );
    expect(draft.variable_mapping).toEqual({
      "1": "first_name",
      "button.1": "custom.order",
      "button.2": "custom.coupon",
    });
    await w.post(`/campaigns/${draft.id}/launch`, undefined, 200);
    await w.t.runJobs();
    const [send] = w.graph.sends();
    expect(send?.body).toMatchObject({
      template: {
        name: "order_ready",
        language: { code: "en_US" },
        components: [
          {
            type: "header",
            parameters: [{ type: "image", image: { link: "https://cdn.example.com/order.png" } }],
          },
          { type: "body", parameters: [{ type: "text", text: "Ada" }] },
          {
            type: "button",
            sub_type: "url",
            index: "1",
            parameters: [{ type: "text", text: "A-7" }],
          },
          {
            type: "button",
            sub_type: "copy_code",
            index: "2",
            parameters: [{ type: "coupon_code", coupon_code: "ADA10" }],
          },
        ],
      },
    });
    expect(await w.stats(draft.id)).toMatchObject({ sent: 1 });
  });

  it("sends the template's example for a button left out of the mapping, and says so when the campaign is created", async () => {
    await approve("https://cdn.example.com/order.png");
    await w.contact(ada, { first_name: "Ada", custom_fields: { order: "A-7" } });
    // The contract asks the mapping to cover the header and body: the buttons may be left out.
    const preview = await w.t.request("POST", `${w.base}/campaigns/preview`, {
      body: body({ "1": "first_name", "button.1": "custom.order" }),
    });
    expect(preview.statusCode, preview.body).toBe(200);
    expect(preview.json().meta.notices).toHaveLength(1);
    const res = await w.t.request("POST", `${w.base}/campaigns`, {
      body: body({ "1": "first_name", "button.1": "custom.order" }),
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().meta).toEqual({
      notices: [
        {
          field: "variable_mapping.button.2",
          message:
            "not mapped: every message's code to copy is the template's example 'SPRING10'; map it to a contact field to send each contact their own",
        },
      ],
    });
    await w.post(`/campaigns/${res.json().data.id}/launch`, undefined, 200);
    await w.t.runJobs();
    const [send] = w.graph.sends();
    expect(JSON.stringify(send?.body)).toContain('"coupon_code":"SPRING10"');
    expect(JSON.stringify(send?.body)).toContain('"text":"A-7"');
  });

  it("answers a mapping of every variable with no notices", async () => {
    await approve("https://cdn.example.com/order.png");
    const res = await w.t.request("POST", `${w.base}/campaigns`, {
      body: body({ "1": "first_name", "button.1": "custom.order", "button.2": "custom.coupon" }),
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().meta).toEqual({});
  });

  it("still refuses a campaign that leaves a body variable unmapped, naming it", async () => {
    await approve("https://cdn.example.com/order.png");
    const res = await w.t.request("POST", `${w.base}/campaigns`, {
      body: body({ "button.1": "custom.order" }),
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().details[0]).toMatchObject({
      field: "variable_mapping",
      message: "must map every variable of the template; missing {{1}}",
    });
  });

  it("refuses a mapping key that is neither a variable number nor button.<index>", async () => {
    await approve("https://cdn.example.com/order.png");
    const res = await w.t.request("POST", `${w.base}/campaigns`, {
      body: body({ "1": "first_name", "button.1": "custom.order", url: "custom.order" }),
    });
    expect(res.statusCode).toBe(422);
    expect(JSON.stringify(res.json().details)).toContain("button.<index>");
  });

  it("refuses a template whose media example is an upload handle, which no message can carry", async () => {
    await approve("4::aW1hZ2UvcG5n:ARZ-fake-upload-handle");
    const res = await w.t.request("POST", `${w.base}/campaigns`, {
      body: body({ "1": "first_name", "button.1": "custom.order", "button.2": "custom.coupon" }),
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().details[0]).toMatchObject({ field: "template_name" });
    expect(res.json().details[0].message).toContain("upload handle");
  });

  it("fails a recipient whose button field is empty instead of sending a broken link", async () => {
    await approve("https://cdn.example.com/order.png");
    await w.contact(ada, { first_name: "Ada", custom_fields: { coupon: "ADA10" } });
    const draft = await w.post(
      "/campaigns",
      body({ "1": "first_name", "button.1": "custom.order", "button.2": "custom.coupon" }),
    );
    await w.post(`/campaigns/${draft.id}/launch`, undefined, 200);
    await w.t.runJobs();
    expect(w.graph.sends()).toEqual([]);
    expect(await w.stats(draft.id)).toMatchObject({ sent: 0, failed: 1 });
  });
});
