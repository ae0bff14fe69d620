// @title Vue form
// Vue 3 with v-model (a template compiled in the page) and @keyup.enter.
import { createApp, reactive } from "vue";

const state = reactive({ email: "", city: "", agreed: false, sent: [] });
window.__state = state;
createApp({
  setup: () => ({ state, send() { if (state.city) { state.sent.push(state.city); state.city = ""; } } }),
  template: `
    <main>
      <h1>Vue form</h1>
      <label>E-mail <input v-model.trim="state.email" type="text"></label>
      <label>City <input v-model="state.city" @keyup.enter="send"></label>
      <label><input type="checkbox" v-model="state.agreed"> I agree</label>
      <ul aria-label="Cities"><li v-for="c in state.sent">{{ c }}</li></ul>
    </main>`,
}).mount("#root");
