(function(){
  async function poll(){
    try{
      const r=await fetch('/api/state',{credentials:'same-origin',cache:'no-store'});
      if(!r.ok) return;
      const s=await r.json();
      const badge=document.getElementById('pending-count');
      if(badge) badge.textContent=s.pending.length?String(s.pending.length):'';
      for(const row of s.servers){
        const el=document.querySelector('[data-state-of="'+CSS.escape(row.server)+'"]');
        if(el && el.textContent!==row.connection){
          el.textContent=row.connection;
          el.className='state-'+(row.connection.toLowerCase().match(/[a-z0-9]+/g)||[]).join('-');
        }
        const t=document.querySelector('[data-tools-of="'+CSS.escape(row.server)+'"]');
        if(t) t.textContent=row.tools_shown||String(row.tools);
      }
      const list=document.getElementById('pending-list');
      if(list && list.dataset.ids!==s.pending.join(',')){
        const f=await fetch('/pending/list',{credentials:'same-origin',cache:'no-store'});
        if(f.ok){ list.outerHTML=await f.text(); }
      }
    }catch(e){}
  }
  poll(); setInterval(poll,1500);
})();
